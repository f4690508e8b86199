/**
 * The people store's conformance suite (./people-store.ts) on the data folder's store:
 * `people/people.sqlite` in a temporary data folder, two services over one folder standing for
 * two instances (one process; on a real data folder one server owns it).
 */
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { People } from "@/lib/people/service";
import { describePeopleStore } from "./people-store";

describePeopleStore({
  name: "data folder (SQLite)",
  racingInstances: false,
  async world() {
    const root = mkdtempSync(path.join(os.tmpdir(), "astrion-people-"));
    return {
      open: (config) => People.open(root, config),
      async tokenHashes() {
        const db = new DatabaseSync(path.join(root, "people", "people.sqlite"), { readOnly: true });
        try {
          return (db.prepare("SELECT token_hash FROM astrion_invitation").all() as Array<{ token_hash: string }>).map((r) => r.token_hash);
        } finally {
          db.close();
        }
      },
    };
  },
});
