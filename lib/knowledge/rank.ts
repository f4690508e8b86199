/**
 * Ranking passages (pure; the index's I/O is in project-index.ts):
 * 1. narrowing: `paths` (folders, files or globs inside the project) keep only the passages of
 *    matching files; within them a query word found in a passage's file path or name, or in its
 *    Markdown heading path, counts more than one in its text (MiniSearch field boosts), so the
 *    files and sections named like the question come first;
 * 2. BM25 (MiniSearch's BM25+) over text, heading and path with lib/text's `codeTerms` (English
 *    words stemmed, filler dropped, CJK as pairs, code identifiers also cut into their words);
 * 3. with vectors (an embedding model configured), the BM25 list and the cosine-similarity list
 *    are fused by reciprocal rank (RRF), which needs no score calibration between the two.
 * At most {@link MAX_PER_FILE} passages of one file are kept, so one long file cannot fill the list.
 */
import MiniSearch from "minisearch";
import { checkRequestedPath } from "@/lib/workspace/resolve";
import { globMatcher } from "@/lib/workspace/glob";
import { ValidationError } from "@/lib/contracts/errors";
import { codeTerms, pathWords } from "@/lib/text/terms";

/** A passage as MiniSearch indexes it. */
export interface IndexedDoc {
  /** `<file>\u0000<n>`: unique, and the file is recoverable from it. */
  id: string;
  path: string;
  heading: string;
  text: string;
}

/** Field weights: a word in the file's path or a heading says more than one in the text. */
const FIELD_BOOST = { path: 3, heading: 2, text: 1 } as const;
/** Passages of one file kept at most. */
const MAX_PER_FILE = 2;
/** RRF's constant (the usual 60). */
const RRF_K = 60;
/** Candidates taken from each list before fusing. */
const FUSE_DEPTH = 200;

/** MiniSearch's options for the knowledge index (the same for building and for loading a saved index). */
const MINI_OPTIONS = {
  fields: ["path", "heading", "text"],
  tokenize: codeTerms,
  processTerm: (term: string) => term,
  searchOptions: { boost: FIELD_BOOST, combineWith: "OR" as const, prefix: false, fuzzy: false },
};

/** A new, empty index. */
export function newMini(): MiniSearch<IndexedDoc> {
  return new MiniSearch<IndexedDoc>(MINI_OPTIONS);
}

/** The doc id of passage `n` of `file`. */
export function docId(file: string, n: number): string {
  return `${file}\u0000${n}`;
}

/** The file and passage number of a doc id. */
export function parseDocId(id: string): { file: string; n: number } {
  const at = id.lastIndexOf("\u0000");
  return { file: id.slice(0, at), n: Number(id.slice(at + 1)) };
}

/** The MiniSearch document of a passage. */
export function docOf(file: string, n: number, heading: string, text: string): IndexedDoc {
  return { id: docId(file, n), path: pathWords(file), heading, text };
}

const GLOB_CHARS = /[*?[\]{}]/;

/**
 * A predicate on project-relative file paths from the tool's `paths` argument: each entry is a
 * folder or file (itself and everything below it) or a glob (workspace/glob.ts rules); the
 * entries are alternatives. Text that could leave the project (`..`, absolute, `~`, encoded
 * separators) is refused, as for every file tool.
 * @throws WorkspaceError or ValidationError naming the bad entry.
 */
export function pathFilter(paths: readonly string[] | undefined): ((file: string) => boolean) | null {
  if (!paths || paths.length === 0) return null;
  const tests = paths.map((p) => {
    const segments = checkRequestedPath(p);
    if (GLOB_CHARS.test(p)) return globMatcher(segments.join("/") || "**");
    const prefix = segments.join("/");
    if (prefix === "") return () => true;
    return (file: string) => file === prefix || file.startsWith(`${prefix}/`);
  });
  return (file) => tests.some((t) => t(file));
}

/** Cosine similarity of two vectors of one length. */
function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** What {@link rankPassages} needs. */
export interface RankInput {
  mini: MiniSearch<IndexedDoc>;
  query: string;
  filter: ((file: string) => boolean) | null;
  /** The query's vector and the passages' vectors by doc id, when vectors are used. */
  vectors?: { query: Float32Array; byId: ReadonlyMap<string, Float32Array> };
  limit: number;
}

/** Doc ids, best first, at most `limit` and {@link MAX_PER_FILE} per file. */
export function rankPassages(input: RankInput): string[] {
  const { mini, filter } = input;
  if (input.query.length > 1000) throw new ValidationError("query must be at most 1000 characters");
  const keep = filter ? (id: string) => filter(parseDocId(id).file) : () => true;
  const lexical = codeTerms(input.query).length
    ? mini
        .search(input.query, { filter: (r) => keep(String(r.id)) })
        .slice(0, FUSE_DEPTH)
        .map((r) => String(r.id))
    : [];
  let order = lexical;
  if (input.vectors) {
    const { query, byId } = input.vectors;
    const scored: Array<{ id: string; s: number }> = [];
    for (const [id, v] of byId) if (v.length === query.length && keep(id)) scored.push({ id, s: cosine(query, v) });
    scored.sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : 1));
    const fused = new Map<string, number>();
    lexical.forEach((id, r) => fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + r + 1)));
    scored.slice(0, FUSE_DEPTH).forEach(({ id }, r) => fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + r + 1)));
    order = [...fused.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
  }
  const perFile = new Map<string, number>();
  const out: string[] = [];
  for (const id of order) {
    const file = parseDocId(id).file;
    const n = perFile.get(file) ?? 0;
    if (n >= MAX_PER_FILE) continue;
    perFile.set(file, n + 1);
    out.push(id);
    if (out.length >= input.limit) break;
  }
  return out;
}

/** float32 vector ↔ base64, the compact form vectors are stored in. */
export function encodeVector(v: readonly number[]): string {
  return Buffer.from(new Float32Array(v).buffer).toString("base64");
}

/** See {@link encodeVector}. */
export function decodeVector(s: string): Float32Array {
  const buf = Buffer.from(s, "base64");
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}
