/**
 * The in-process presence store: the data folder's backend, where one server holds every
 * conversation. A map in memory and nothing else (presence is never written to disk); a change is
 * told to this process's watchers on the next microtask.
 */
import type { PresenceEntry, PresenceStore, StopWatching } from "./port";

/** A {@link PresenceStore} in this process's memory. */
export function memoryPresenceStore(): PresenceStore {
  const viewers = new Map<string, Map<string, PresenceEntry>>();
  const listeners = new Map<string, Set<() => void>>();
  const signOuts = new Set<(personId: string) => void>();
  return {
    async put(conversation, entry) {
      let map = viewers.get(conversation);
      if (!map) viewers.set(conversation, (map = new Map()));
      map.set(entry.viewer, entry);
    },
    async replace(conversation, entry) {
      const map = viewers.get(conversation);
      if (!map?.has(entry.viewer)) return false;
      map.set(entry.viewer, entry);
      return true;
    },
    async get(conversation, viewer) {
      return viewers.get(conversation)?.get(viewer) ?? null;
    },
    async remove(conversation, gone) {
      const map = viewers.get(conversation);
      for (const viewer of gone) map?.delete(viewer);
    },
    async entries(conversation) {
      return [...(viewers.get(conversation)?.values() ?? [])];
    },
    async conversations() {
      return [...viewers.keys()];
    },
    async forget(conversation) {
      if (viewers.get(conversation)?.size === 0) viewers.delete(conversation);
    },
    async announce(conversation) {
      const set = listeners.get(conversation);
      if (!set) return;
      queueMicrotask(() => {
        for (const onChange of [...set]) onChange();
      });
    },
    listen(conversation, onChange): StopWatching {
      let set = listeners.get(conversation);
      if (!set) listeners.set(conversation, (set = new Set()));
      const own = () => onChange();
      set.add(own);
      return () => {
        set.delete(own);
        if (set.size === 0 && listeners.get(conversation) === set) listeners.delete(conversation);
      };
    },
    async announceSignOut(personId) {
      queueMicrotask(() => {
        for (const onSignOut of [...signOuts]) onSignOut(personId);
      });
    },
    listenSignOut(onSignOut): StopWatching {
      const own = (personId: string) => onSignOut(personId);
      signOuts.add(own);
      return () => void signOuts.delete(own);
    },
    async close() {
      viewers.clear();
      listeners.clear();
      signOuts.clear();
    },
  };
}
