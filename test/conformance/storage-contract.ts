/**
 * What the engine storage's conformance cases are run against: a storage under test handed over
 * as a harness over backing data that outlives one storage object (so a case can reopen it or
 * crash it), a factory of fresh harnesses, the shape of a case, and the cases' small helpers.
 * A backend's test support (test/support/*-storage.ts) implements the harness; the cases
 * (./storage-*-cases.ts) use only it and the port, never a backend's internals.
 */
import type { TimelineRecord } from "@/lib/protocol";
import type { EngineStorage } from "@/lib/runtime/team/ports";
import type { Durability } from "@/lib/store";

/** A storage under test, over backing data (a data folder, a database) that outlives it. */
export interface StorageHarness {
  readonly storage: EngineStorage;
  /**
   * Conversations the backing data held when it was made, open as the engine holds the ones it
   * runs. At least two, made fresh (no agents, no messages, status `active`, phase `IDLE`): the
   * first runs `fast`, the second `thinking`. The same ids after a reopen or a crash.
   */
  readonly conversationIds: readonly string[];
  /** Lets go of this storage cleanly (every change made is kept) and opens a new one over the same backing data. */
  reopen(): Promise<StorageHarness>;
  /**
   * Drops this storage as a crash would (every change that was durable is kept; the others may be
   * lost, or not) and opens a new one over the same backing data. The old object is not used again.
   */
  crash(): Promise<StorageHarness>;
  /** The timeline records the backing data holds for a conversation, as an outside reader sees them (asked of a freshly opened harness). */
  timeline(convId: string): Promise<TimelineRecord[]>;
  /** The context report lines the backing data holds for a conversation (asked like {@link timeline}). */
  contextReports(convId: string): Promise<string[]>;
  /**
   * Holds durability back until the returned release is called: meanwhile changes are made and
   * resolve as usual, but none becomes durable. Only a factory with `canHoldDurability` has it.
   */
  holdDurability?(): () => void;
  /**
   * Lets go of the newest storage over this backing data (whichever harness of a chain of reopens
   * it is called on) and removes the backing data: a test's end.
   */
  close(): Promise<void>;
}

/** Makes fresh harnesses, each over backing data of its own. */
export interface StorageFactory {
  create(): Promise<StorageHarness>;
  /** Whether its harnesses can hold durability back (the cases that need it are skipped otherwise). */
  canHoldDurability: boolean;
}

/** One statement of the contract, run against a fresh harness. */
export interface StorageCase {
  /** The part of the contract (a describe block). */
  group: string;
  name: string;
  /** Needs {@link StorageHarness.holdDurability}. */
  needsHold?: boolean;
  /** Runs the case (it may reopen or crash the harness; the runner closes the chain). */
  run(h: StorageHarness): Promise<void>;
}

// ------------------------------------------------------------------------------------ helpers

/** A well-formed conversation id no harness holds. */
export const UNKNOWN_CONVERSATION = "conv_19990101_000000_001";

/** Where a conversation's changes stand; a storage without marks (null) makes every change durable as made. */
export function durabilityOf(storage: EngineStorage, convId: string): Durability {
  return storage.durability(convId) ?? ALWAYS_DURABLE;
}

const ALWAYS_DURABLE: Durability = { durableMark: 0, isDurable: () => true, whenDurable: () => Promise.resolve() };

/** Lets the event loop turn `n` times (timers and I/O callbacks get to run). */
export async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Whether `promise` settles within `ms` milliseconds (it is not waited for longer). A storage may
 * need I/O for a change that resolves before durability (a file read, a round trip), so "it
 * resolves while durability is held" is given {@link SOON} to happen, and "it waits for
 * durability" is checked over {@link A_WHILE}, during which durability stays held.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = promise.then(
    () => true,
    () => true,
  );
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long something that must not wait for durability may take (ms). */
export const SOON = 5_000;
/** How long something that must wait for held durability is watched (ms). */
export const A_WHILE = 100;

/** The first two seeded conversations: a fast one and a thinking one. */
export function twoConversations(h: StorageHarness): [string, string] {
  const [a, b] = h.conversationIds;
  if (!a || !b) throw new Error("a storage harness must hold at least two conversations");
  return [a, b];
}
