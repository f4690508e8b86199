/**
 * The engine storage's conformance suite (lib/runtime/team/ports.ts `EngineStorage`): every
 * case of the contract (./storage-files-cases.ts: the conversation files;
 * ./storage-durability-cases.ts: durability, lines, the journal, reopen and crash;
 * ./storage-shared-context-cases.ts: the shared context) and
 * {@link describeEngineStorage}, which runs them against a factory's fresh harnesses
 * (./storage-contract.ts). The cases use only the port and the harness, never a backend's
 * internals, so the file store, the in-memory test store and a later PostgreSQL store pass the
 * same suite unchanged.
 */
import { describe, it } from "vitest";
import type { StorageCase, StorageFactory } from "./storage-contract";
import { FILE_CASES } from "./storage-files-cases";
import { DURABILITY_CASES } from "./storage-durability-cases";
import { SHARED_CONTEXT_CASES } from "./storage-shared-context-cases";

export type { StorageCase, StorageFactory, StorageHarness } from "./storage-contract";

/** Every case of the storage contract. */
export const STORAGE_CASES: readonly StorageCase[] = [...FILE_CASES, ...DURABILITY_CASES, ...SHARED_CONTEXT_CASES];

/** Runs one case against a fresh harness of `factory`, then closes it (and whatever it was reopened as). */
export async function runStorageCase(factory: StorageFactory, c: StorageCase): Promise<void> {
  const h = await factory.create();
  try {
    await c.run(h);
  } finally {
    await h.close();
  }
}

/** The storage contract as a vitest suite, run against the storages `factory` makes. */
export function describeEngineStorage(name: string, factory: StorageFactory): void {
  describe(`EngineStorage conformance: ${name}`, () => {
    const groups = [...new Set(STORAGE_CASES.map((c) => c.group))];
    for (const group of groups) {
      describe(group, () => {
        for (const c of STORAGE_CASES.filter((x) => x.group === group)) {
          it.skipIf(c.needsHold === true && !factory.canHoldDurability)(c.name, () => runStorageCase(factory, c));
        }
      });
    }
  });
}

