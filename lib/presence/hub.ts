/**
 * The presence port over any {@link PresenceStore}: the rules (acknowledgment timeout, typing
 * window, one entry per person), the watchers of this instance and the sweep that notices what
 * changes without a write (a viewer whose acknowledgments stopped, typing that went quiet). The
 * same code runs over the in-process map and over Redis, so both pass one conformance suite.
 *
 * A store that is away (Redis down) never breaks a page: writes are tried and logged, reads
 * answer nobody, an acknowledgment answers "known" so pages do not reconnect in a storm.
 */
import type { PresencePerson, PresentPerson } from "@/lib/contracts/presence";
import type { Presence, PresenceEntry, PresenceState, PresenceStore, StopWatching } from "./port";
import { presentPeople } from "./view";

/** How long a viewer stays present without an acknowledgment (the page acknowledges every ~10 s). */
const ACK_TIMEOUT_MS = 25_000;
/** How long "typing" lasts after the last keystroke beat (the page beats every ~2 s while typing). */
const TYPING_MS = 5_000;
/** How often watched conversations are checked for expiries. */
const SWEEP_MS = 1_000;

/** Options of {@link createPresence}; the defaults are the documented bounds. */
export interface PresenceOptions {
  ackTimeoutMs?: number;
  typingMs?: number;
  sweepMs?: number;
  now?: () => number;
  log?: (message: string) => void;
}

interface Watched {
  listeners: Set<(people: PresentPerson[]) => void>;
  /** The people last delivered, and their JSON (to tell a change). */
  people: PresentPerson[] | null;
  json: string;
  unlisten: StopWatching;
  /** A refresh runs; `again` asks for one more after it (a change arrived meanwhile). */
  running: boolean;
  again: boolean;
}

/** Builds the presence port over `store`. */
export function createPresence(store: PresenceStore, options: PresenceOptions = {}): Presence {
  const ackTimeoutMs = options.ackTimeoutMs ?? ACK_TIMEOUT_MS;
  const typingMs = options.typingMs ?? TYPING_MS;
  const sweepMs = options.sweepMs ?? SWEEP_MS;
  const now = options.now ?? Date.now;
  const log = options.log ?? ((message: string) => console.error(`[astrion] ${message}`));
  const watched = new Map<string, Watched>();
  /** This instance's streams by person, closed when the person is signed out (./port.ts). */
  const streamsOf = new Map<string, Set<() => void>>();
  let unlistenSignOut: StopWatching | null = null;
  const signedOut = (personId: string) => {
    const closes = streamsOf.get(personId);
    streamsOf.delete(personId);
    for (const close of [...(closes ?? [])]) {
      try {
        close();
      } catch (error) {
        failed("close a signed-out stream")(error);
      }
    }
  };
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  let lastLogged = 0;

  /** Logs a failure of the store at most every 10 s (a Redis outage would otherwise flood the log). */
  const failed = (what: string) => (error: unknown) => {
    if (now() - lastLogged < 10_000) return;
    lastLogged = now();
    log(`presence could not ${what}: ${(error as Error)?.message ?? String(error)}`);
  };

  /** The people present now, dropping the expired entries it finds from the store. */
  const read = async (conversation: string): Promise<PresentPerson[]> => {
    const { people, expired } = presentPeople(await store.entries(conversation), now());
    if (expired.length > 0) {
      await store.remove(conversation, expired);
      if (people.length === 0) await store.forget(conversation);
      await store.announce(conversation);
    }
    return people;
  };

  const refresh = async (conversation: string): Promise<void> => {
    const w = watched.get(conversation);
    if (!w) return;
    if (w.running) {
      w.again = true;
      return;
    }
    w.running = true;
    try {
      do {
        w.again = false;
        const people = await read(conversation).catch((error: unknown) => {
          failed("read who is present")(error);
          return null;
        });
        if (people === null || closed) continue;
        const json = JSON.stringify(people);
        if (w.people !== null && json === w.json) continue;
        w.people = people;
        w.json = json;
        for (const listener of [...w.listeners]) {
          try {
            listener(people);
          } catch (error) {
            failed("tell a watcher")(error);
          }
        }
      } while (w.again && watched.get(conversation) === w);
    } finally {
      w.running = false;
    }
  };

  const changed = async (conversation: string) => {
    await store.announce(conversation).catch(failed("announce a change"));
    // This instance's watchers learn at once, not after the store's round trip.
    void refresh(conversation);
  };

  const startSweeping = () => {
    if (sweeper || closed) return;
    sweeper = setInterval(() => {
      for (const conversation of watched.keys()) void refresh(conversation);
    }, sweepMs);
    // A sweep alone must not keep a process alive (tests, shutdown).
    (sweeper as { unref?: () => void }).unref?.();
  };

  return {
    async join(conversation: string, viewer: string, person: PresencePerson) {
      const at = now();
      const entry: PresenceEntry = { viewer, person: { id: person.id, name: person.name }, joinedAt: at, drawer: null, typing: null, typingUntil: 0, expiresAt: at + ackTimeoutMs };
      try {
        await store.put(conversation, entry);
      } catch (error) {
        failed("register a viewer")(error);
        return;
      }
      await changed(conversation);
    },

    async beat(conversation: string, viewer: string, personId: string, state: PresenceState) {
      let old: PresenceEntry | null;
      try {
        old = await store.get(conversation, viewer);
      } catch (error) {
        failed("read a viewer")(error);
        return true;
      }
      const at = now();
      // Another person cannot keep someone's tab alive or speak for it.
      if (!old || old.expiresAt <= at || old.person.id !== personId) return false;
      const typing = state.typing;
      const entry: PresenceEntry = { ...old, drawer: state.drawer, typing, typingUntil: typing === null ? 0 : at + typingMs, expiresAt: at + ackTimeoutMs };
      let kept: boolean;
      try {
        kept = await store.replace(conversation, entry);
      } catch (error) {
        failed("renew a viewer")(error);
        return true;
      }
      if (!kept) return false;
      const wasTyping = old.typing !== null && old.typingUntil > at ? old.typing : null;
      if (old.drawer !== entry.drawer || wasTyping !== typing) await changed(conversation);
      return true;
    },

    async leave(conversation: string, viewer: string) {
      try {
        await store.remove(conversation, [viewer]);
        if ((await store.entries(conversation)).length === 0) await store.forget(conversation);
      } catch (error) {
        failed("remove a viewer")(error);
        return;
      }
      await changed(conversation);
    },

    async people(conversation: string) {
      return read(conversation).catch((error: unknown) => {
        failed("read who is present")(error);
        return [];
      });
    },

    async counts() {
      const out: Record<string, number> = {};
      try {
        for (const conversation of await store.conversations()) {
          const people = await read(conversation);
          if (people.length > 0) out[conversation] = people.length;
          else await store.forget(conversation);
        }
      } catch (error) {
        failed("count who is present")(error);
      }
      return out;
    },

    watch(conversation: string, listener: (people: PresentPerson[]) => void): StopWatching {
      let w = watched.get(conversation);
      if (!w) {
        w = { listeners: new Set(), people: null, json: "", unlisten: () => undefined, running: false, again: false };
        watched.set(conversation, w);
        w.unlisten = store.listen(conversation, () => void refresh(conversation));
      }
      w.listeners.add(listener);
      if (w.people !== null) {
        const people = w.people;
        queueMicrotask(() => {
          if (w.listeners.has(listener)) listener(people);
        });
      } else void refresh(conversation);
      startSweeping();
      let stopped = false;
      return () => {
        if (stopped) return;
        stopped = true;
        w.listeners.delete(listener);
        if (w.listeners.size > 0 || watched.get(conversation) !== w) return;
        watched.delete(conversation);
        w.unlisten();
        if (watched.size === 0) {
          clearInterval(sweeper);
          sweeper = undefined;
        }
      };
    },

    async signOut(personId: string) {
      await store.announceSignOut(personId).catch(failed("announce a sign-out"));
      // This instance's streams close at once, not after the store's round trip.
      signedOut(personId);
    },

    onSignOut(personId: string, close: () => void): StopWatching {
      unlistenSignOut ??= store.listenSignOut(signedOut);
      let set = streamsOf.get(personId);
      if (!set) streamsOf.set(personId, (set = new Set()));
      let done = false;
      const once = () => {
        if (done) return;
        done = true;
        close();
      };
      set.add(once);
      return () => {
        done = true;
        set.delete(once);
        if (set.size === 0 && streamsOf.get(personId) === set) streamsOf.delete(personId);
      };
    },

    async close() {
      closed = true;
      unlistenSignOut?.();
      unlistenSignOut = null;
      streamsOf.clear();
      clearInterval(sweeper);
      sweeper = undefined;
      for (const w of watched.values()) w.unlisten();
      watched.clear();
      await store.close();
    },
  };
}
