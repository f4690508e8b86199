/**
 * The presence port (issue 32): who has a conversation open right now, kept only in memory (one
 * process on the data folder) or in Redis (instances on PostgreSQL + Redis), never on disk.
 * {@link Presence} is what routes and SSE streams use; {@link PresenceStore} is what an
 * implementation provides underneath (./hub.ts builds the one from the other, so expiry, counting
 * per person and change detection are the same code on every backend). Types only.
 */
import type { PresencePerson, PresentPerson, TypingTarget } from "@/lib/contracts/presence";

/** One viewer (one open event stream: a tab) as stored. */
export interface PresenceEntry {
  readonly viewer: string;
  readonly person: PresencePerson;
  /** When the stream registered it (ms since the epoch): people are listed in order of arrival. */
  readonly joinedAt: number;
  /** The sub-agent whose drawer it has open, or null. */
  readonly drawer: number | null;
  /** Whom it was typing to at its last beat, or null; it counts until `typingUntil`. */
  readonly typing: TypingTarget | null;
  readonly typingUntil: number;
  /** Unacknowledged past this instant (ms since the epoch), it is no longer present. */
  readonly expiresAt: number;
}

/** What a viewer says with an acknowledgment. */
export interface PresenceState {
  drawer: number | null;
  typing: TypingTarget | null;
}

/** Ends a watch; calling it again does nothing. */
export type StopWatching = () => void;

/** The port routes and streams use. Never throws for a store that is away: presence is best effort. */
export interface Presence {
  /** Registers a viewer of `conversation` as `person`, present at once. */
  join(conversation: string, viewer: string, person: PresencePerson): Promise<void>;
  /**
   * An acknowledgment by `personId` for `viewer`: present for another timeout, with what it has
   * open. False when the viewer is not registered (it left or expired) or is another person's.
   */
  beat(conversation: string, viewer: string, personId: string, state: PresenceState): Promise<boolean>;
  /** The viewer's stream closed: gone at once. */
  leave(conversation: string, viewer: string): Promise<void>;
  /** The people present now, one entry per person, in order of arrival. */
  people(conversation: string): Promise<PresentPerson[]>;
  /** How many people have each conversation open (those with nobody are left out). */
  counts(): Promise<Record<string, number>>;
  /**
   * Calls `listener` with the people present now, then whenever that changes (a join, a leave,
   * a drawer or typing change, an expiry) on this instance or any other sharing the store.
   */
  watch(conversation: string, listener: (people: PresentPerson[]) => void): StopWatching;
  /**
   * `personId` was removed (or otherwise signed out everywhere): every {@link onSignOut} for them,
   * on this instance and on every other sharing the store, is called (their open streams close).
   */
  signOut(personId: string): Promise<void>;
  /** Calls `close` once when {@link signOut} names `personId`, here or on another instance. */
  onSignOut(personId: string, close: () => void): StopWatching;
  close(): Promise<void>;
}

/**
 * Where entries are kept: a map in this process, or a Redis hash per conversation with a
 * channel that tells every instance of a change. Every method may reject while the store is away.
 */
export interface PresenceStore {
  put(conversation: string, entry: PresenceEntry): Promise<void>;
  /** Overwrites the entry of `entry.viewer` only if there is one; false otherwise. */
  replace(conversation: string, entry: PresenceEntry): Promise<boolean>;
  get(conversation: string, viewer: string): Promise<PresenceEntry | null>;
  remove(conversation: string, viewers: readonly string[]): Promise<void>;
  entries(conversation: string): Promise<PresenceEntry[]>;
  /** The conversations that may have entries (each is dropped by `forget` once empty). */
  conversations(): Promise<string[]>;
  /** Drops `conversation` from {@link conversations} if it has no entry left. */
  forget(conversation: string): Promise<void>;
  /** Tells every watcher of `conversation` (here and on other instances) that it changed. */
  announce(conversation: string): Promise<void>;
  /** Hears {@link announce} for `conversation`. */
  listen(conversation: string, onChange: () => void): StopWatching;
  /** Tells every instance's {@link listenSignOut} that `personId` was signed out everywhere. */
  announceSignOut(personId: string): Promise<void>;
  /** Hears {@link announceSignOut} (one listener per instance: the port's). */
  listenSignOut(onSignOut: (personId: string) => void): StopWatching;
  close(): Promise<void>;
}
