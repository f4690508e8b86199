/**
 * Reading a data folder as `npm run migrate-data` sees it, for its tests: the files it moves (every
 * conversation's seed files, JSON Lines files and shared context, conversations/index.json and
 * state.json) as bytes by path, the seed-format check (every JSON file parses and fits the seed's
 * schema, as the crash test checks a folder), and a conversation with the odd content a move must
 * keep byte for byte, in the seed's format.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import {
  AgentMessagesFileSchema,
  AgentMetadataSchema,
  ConversationMetadataSchema,
  IndexFileSchema,
  LeaderMessagesFileSchema,
  StateFileSchema,
} from "@/lib/contracts/on-disk";
import { SharedContextFileSchema } from "@/lib/shared-context/schema";
import { toPythonJsonBytes } from "@/lib/store/json";
import { fixtureFolder } from "@/test/helpers/export/folder";

/** The files of a conversation folder that are moved (the step log and temporary files are not). */
const MOVED = /^(metadata\.json|messages\.json|shared_context\.json|timeline\.jsonl|context\.jsonl|actions\.jsonl|agents\/[1-9]\d*\/(metadata|messages)\.json)$/;

/** The files below `dir`, by `/`-separated path relative to it. */
function filesBelow(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel))
    .sort()
    .flatMap((name) => {
      const child = rel ? `${rel}/${name}` : name;
      return statSync(path.join(dir, child)).isDirectory() ? filesBelow(dir, child) : [child];
    });
}

/** The files of the data folder `root` that migrate-data moves, by `/`-separated path relative to it. */
export function movedFiles(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const conversations = path.join(root, "conversations");
  for (const id of readdirSync(conversations).filter((n) => n.startsWith("conv_")).sort()) {
    for (const rel of filesBelow(path.join(conversations, id)).filter((r) => MOVED.test(r))) out.set(`conversations/${id}/${rel}`, readFileSync(path.join(conversations, id, rel)));
  }
  out.set("conversations/index.json", readFileSync(path.join(conversations, "index.json")));
  out.set("state.json", readFileSync(path.join(root, "state.json")));
  return out;
}

/** The paths whose bytes differ between two {@link movedFiles} (present on one side only included). */
export function differing(a: Map<string, Buffer>, b: Map<string, Buffer>): string[] {
  const names = new Set([...a.keys(), ...b.keys()]);
  return [...names].filter((n) => !a.get(n) || !b.get(n) || !a.get(n)!.equals(b.get(n)!)).sort();
}

/** Every JSON file of the data folder parses and fits the seed's format (the crash test's check, and the shared context's). */
export function expectSeedFormat(root: string): void {
  const conversations = path.join(root, "conversations");
  const json = (file: string) => JSON.parse(readFileSync(file, "utf8")) as unknown;
  IndexFileSchema.parse(json(path.join(conversations, "index.json")));
  StateFileSchema.parse(json(path.join(root, "state.json")));
  for (const id of readdirSync(conversations).filter((n) => n.startsWith("conv_"))) {
    const dir = path.join(conversations, id);
    expect(ConversationMetadataSchema.parse(json(path.join(dir, "metadata.json"))).id).toBe(id);
    LeaderMessagesFileSchema.parse(json(path.join(dir, "messages.json")));
    if (readdirSync(dir).includes("shared_context.json")) SharedContextFileSchema.parse(json(path.join(dir, "shared_context.json")));
    const agents = path.join(dir, "agents");
    for (const agent of readdirSync(dir).includes("agents") ? readdirSync(agents) : []) {
      expect(AgentMetadataSchema.parse(json(path.join(agents, agent, "metadata.json"))).agent_id).toBe(Number(agent));
      AgentMessagesFileSchema.parse(json(path.join(agents, agent, "messages.json")));
    }
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".jsonl") && n !== "steps.jsonl")) {
      for (const line of readFileSync(path.join(dir, name), "utf8").split("\n").filter(Boolean)) JSON.parse(line);
    }
  }
}

/** The id of {@link oddConversation}. */
export const ODD_ID = "conv_20260711_210000_001";

/**
 * A conversation folder in the seed's format (Python-style JSON) with what a move must keep: text
 * beyond ASCII (CJK, emoji, combining marks), a NUL and other control characters inside strings,
 * whole and fractional epoch seconds under the seed's float keys, large token counts, a cost, an
 * unknown field, every JSON Lines file, a shared context, and an archived status.
 */
export function oddConversation(projectPath: string): Map<string, Uint8Array> {
  const base = fixtureFolder({ id: ODD_ID, projectPath, title: "Réunion: 数据迁移 🚀 e\u0301\u0000té", userText: "Tabs\tand\u0007bells, a NUL \u0000 and \u2028 a line separator" });
  const parse = (rel: string) => JSON.parse(new TextDecoder().decode(base.get(rel))) as Record<string, unknown>;
  const meta = { ...parse("metadata.json"), status: "archived", token_totals: { prompt_tokens: 9_007_199_254, completion_tokens: 12, total_tokens: 9_007_199_266, cost: 0.0123 }, extra_field: { kept: [1, 2.5, null] } };
  const leader = parse("messages.json");
  leader.token_statistics = { total: { prompt_tokens: 9_007_199_254, completion_tokens: 12, cost: 0.0123 } };
  const agent = parse("agents/3/metadata.json");
  agent.pending_messages = [
    { id: "msg_tl_001", source_display_name: "Team Leader", source_agent_id: null, message_type: "message", content: "整数秒", created_at: 1752251700 },
    { id: "msg_tl_002", source_display_name: "Team Leader", source_agent_id: null, message_type: "message", content: "fraction", created_at: 1752251700.25 },
  ];
  const files = new Map<string, Uint8Array>();
  for (const [rel, data] of base) {
    if (rel.endsWith(".jsonl")) files.set(rel, data);
    else files.set(rel, toPythonJsonBytes(rel === "metadata.json" ? meta : rel === "messages.json" ? leader : rel === "agents/3/metadata.json" ? agent : JSON.parse(new TextDecoder().decode(data))));
  }
  files.set("shared_context.json", toPythonJsonBytes({ version: 1, entries: { plan: { key: "plan", value: "步骤 1 → 2", version: 2, author: "Team Leader", author_role: "leader", updated_at: "2026-07-11T21:00:00Z" } }, pending: [], history: [] }));
  files.set("context.jsonl", new TextEncoder().encode(`${JSON.stringify({ at: "2026-07-11T13:00:00.000Z", agent_id: 3, report: "κείμενο" })}\n`));
  files.set("actions.jsonl", new TextEncoder().encode(`${JSON.stringify({ key: "agent:3:call_2", status: "started", at: "2026-07-11T13:00:01.000Z" })}\n${JSON.stringify({ key: "agent:3:call_2", status: "done", result: "ok", at: "2026-07-11T13:00:02.000Z" })}\n`));
  return files;
}
