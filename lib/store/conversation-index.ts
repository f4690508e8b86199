/**
 * The conversation index in memory: what the conversation list and its search need of every
 * conversation, and the seed's `conversations/index.json` entries, kept by the store (the single
 * writer of conversation metadata) on every create, update and delete. A page or a search reads
 * only this, never a conversation's files. Pure: no I/O.
 *
 * Rows are kept newest first (by `updated_at`, then id) in one array, updated by binary search,
 * so a page without a search costs the page, not the number of conversations; a search is one
 * pass over pre-lowered titles and folders.
 */
import type { ConversationListItem } from "@/lib/contracts/http";
import type { ConversationMetadata, ConversationStatus, IndexEntry, IndexFile } from "@/lib/contracts/on-disk";
import { compareConversationIds } from "./time";

/** A list query, as `ListConversationsQuerySchema` outputs it. */
export interface IndexQuery {
  q?: string;
  status: ConversationStatus | "all";
  offset: number;
  limit: number;
}

interface Row {
  item: ConversationListItem;
  lowerTitle: string;
  lowerPath: string;
}

/** The seed's index.json entry of a conversation; fields of `previous` the seed does not name are kept. */
export function indexEntryOf(meta: ConversationMetadata, previous?: IndexEntry): IndexEntry {
  return {
    ...previous,
    title: meta.title,
    created_at: meta.created_at,
    updated_at: meta.updated_at,
    agent_count: meta.agent_count,
  };
}

/** A conversation as the list shows it. */
export function listItemOf(meta: ConversationMetadata): ConversationListItem {
  const item: ConversationListItem = {
    id: meta.id,
    title: meta.title,
    created_at: meta.created_at,
    updated_at: meta.updated_at,
    agent_count: meta.agent_count,
    status: meta.status,
    model_key: meta.model_key,
    run_mode: meta.run_mode,
    project_path: meta.project_path,
  };
  if (meta.phase !== undefined) item.phase = meta.phase;
  if (meta.token_totals !== undefined) item.token_totals = meta.token_totals;
  return item;
}

/** Positive when `a` lists before `b`: newer `updated_at` first, then the later id. */
function listsBefore(a: ConversationListItem, b: ConversationListItem): number {
  if (a.updated_at !== b.updated_at) return a.updated_at > b.updated_at ? 1 : -1;
  return compareConversationIds(a.id, b.id);
}

function sameSeedFields(a: IndexEntry, b: IndexEntry): boolean {
  return sameOutsideSteps(a, b) && a.updated_at === b.updated_at && a.agent_count === b.agent_count;
}

/**
 * The same in the fields the engine's steps do not move. A step moves `updated_at`, and one that
 * creates a sub-agent `agent_count`; both are in the conversation's metadata.json (and its step
 * log) first, so index.json may lag behind them (IndexKeeper.putSoon).
 */
function sameOutsideSteps(a: IndexEntry, b: IndexEntry): boolean {
  return a.title === b.title && a.created_at === b.created_at;
}

/** What {@link reconcileIndex} found: the entries to keep and how index.json differed from the metadata. */
export interface Reconciled {
  /** index.json's entries in file order, then new ones by id. */
  entries: Map<string, IndexEntry>;
  /** Conversations index.json lacked. */
  added: string[];
  /** Entries of conversations that no longer exist. */
  removed: string[];
  /** Entries whose title, creation time or agent count differed from metadata.json. */
  changed: string[];
  /**
   * Entries that differed only in `updated_at`: the engine writes that change of index.json in
   * the background, so a crash can leave it behind; catching up is not a rebuild.
   */
  touched: string[];
}

/**
 * Compares index.json (null when missing or broken) with the conversations' metadata.json files.
 * An entry of a conversation whose folder exists but whose metadata.json cannot be read
 * (`unreadable`) is kept as it is: the index then still names it, as it did before it broke.
 */
export function reconcileIndex(
  file: IndexFile | null,
  metas: readonly ConversationMetadata[],
  unreadable: ReadonlySet<string>,
): Reconciled {
  const byId = new Map(metas.map((m) => [m.id, m]));
  const entries = new Map<string, IndexEntry>();
  const removed: string[] = [];
  const changed: string[] = [];
  const touched: string[] = [];
  for (const [id, previous] of Object.entries(file ?? {})) {
    const meta = byId.get(id);
    if (!meta) {
      if (unreadable.has(id)) entries.set(id, previous);
      else removed.push(id);
      continue;
    }
    const entry = indexEntryOf(meta, previous);
    if (!sameSeedFields(entry, previous)) (sameOutsideSteps(entry, previous) ? touched : changed).push(id);
    entries.set(id, entry);
  }
  const added = metas
    .filter((m) => !entries.has(m.id))
    .map((m) => m.id)
    .sort(compareConversationIds);
  for (const id of added) entries.set(id, indexEntryOf(byId.get(id) as ConversationMetadata));
  return { entries, added, removed, changed, touched };
}

/** The in-memory conversation index (see the file comment). */
export class ConversationIndex {
  readonly #rows = new Map<string, Row>();
  /** Newest first. */
  #ordered: Row[] = [];
  #entries = new Map<string, IndexEntry>();
  readonly #counts: Record<ConversationStatus, number> = { active: 0, archived: 0 };

  /** Replaces everything: the listable conversations and index.json's entries (in file order). */
  load(metas: readonly ConversationMetadata[], entries: Map<string, IndexEntry>): void {
    this.#rows.clear();
    this.#counts.active = 0;
    this.#counts.archived = 0;
    for (const meta of metas) {
      const row = this.#rowOf(meta);
      this.#rows.set(meta.id, row);
      this.#counts[row.item.status]++;
    }
    this.#ordered = [...this.#rows.values()].sort((a, b) => listsBefore(b.item, a.item));
    this.#entries = new Map(entries);
  }

  /** Conversations that can be listed. */
  get size(): number {
    return this.#rows.size;
  }

  /** Whether the conversation is listed. */
  has(id: string): boolean {
    return this.#rows.has(id);
  }

  /**
   * Adds or replaces a conversation after its metadata.json was written. Returns whether its
   * index.json entry changed (new, or another title, time or agent count): only then does
   * index.json need rewriting — a status or phase change, or a second touch within the same
   * second (times have whole seconds), leaves the file as it is.
   */
  put(meta: ConversationMetadata): boolean {
    this.#detach(meta.id);
    const row = this.#rowOf(meta);
    this.#rows.set(meta.id, row);
    this.#counts[row.item.status]++;
    this.#ordered.splice(this.#insertionPoint(row.item), 0, row);
    const previous = this.#entries.get(meta.id);
    const entry = indexEntryOf(meta, previous);
    this.#entries.set(meta.id, entry);
    this.lastPutMovedOnlyStepFields = previous !== undefined && !sameSeedFields(entry, previous) && sameOutsideSteps(entry, previous);
    return !previous || !sameSeedFields(entry, previous);
  }

  /** Whether the last {@link put} changed index.json's entry in `updated_at` or `agent_count` only (what a step moves). */
  lastPutMovedOnlyStepFields = false;

  /** Forgets a deleted conversation (its list row and its index.json entry). */
  remove(id: string): void {
    this.#detach(id);
    this.#entries.delete(id);
  }

  /**
   * One page of the list: `status` filter, then `q` (case-insensitive, in the title or the
   * project folder), newest first; `total` counts every match.
   */
  query({ q, status, offset, limit }: IndexQuery): { items: ConversationListItem[]; total: number } {
    const needle = q?.toLowerCase() ?? "";
    const end = offset + limit;
    if (!needle && status === "all") {
      return { items: this.#ordered.slice(offset, end).map((r) => ({ ...r.item })), total: this.#ordered.length };
    }
    const items: ConversationListItem[] = [];
    let total = 0;
    for (const row of this.#ordered) {
      if (status !== "all" && row.item.status !== status) continue;
      if (needle && !row.lowerTitle.includes(needle) && !row.lowerPath.includes(needle)) continue;
      if (total >= offset && total < end) items.push({ ...row.item });
      total++;
      // Without a search the total is known, so the walk can stop once the page is full.
      if (!needle && total >= end) return { items, total: this.#counts[status as ConversationStatus] };
    }
    return { items, total };
  }

  /** index.json as it should be on disk: the seed's format, entries in file order. */
  toIndexFile(): IndexFile {
    const out: IndexFile = {};
    for (const [id, entry] of this.#entries) out[id] = entry;
    return out;
  }

  #rowOf(meta: ConversationMetadata): Row {
    return { item: listItemOf(meta), lowerTitle: meta.title.toLowerCase(), lowerPath: meta.project_path.toLowerCase() };
  }

  /** Removes a conversation's row from the ordered list and the counts (not its index.json entry). */
  #detach(id: string): void {
    const old = this.#rows.get(id);
    if (!old) return;
    this.#rows.delete(id);
    this.#counts[old.item.status]--;
    let at = this.#insertionPoint(old.item);
    // The row sorts exactly where it would be inserted, unless something equal sits there.
    if (this.#ordered[at] !== old) at = this.#ordered.indexOf(old);
    if (at >= 0) this.#ordered.splice(at, 1);
  }

  /** The first position whose row lists after `item` (binary search over the newest-first order). */
  #insertionPoint(item: ConversationListItem): number {
    let lo = 0;
    let hi = this.#ordered.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (listsBefore((this.#ordered[mid] as Row).item, item) > 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
