/**
 * Reads a `.zip` that came from outside (an import): hostile input. Pure (no I/O).
 *
 * The central directory is walked here rather than with fflate's `unzipSync`, because that trusts
 * what the archive declares: it decodes names that are not UTF-8 as Latin-1 without saying so,
 * and inflates into a buffer of the declared size. Inflating itself is fflate's (`Inflate`), fed
 * in small slices so the bytes actually produced are counted as they come out; the event loop is
 * given back every MiB or so.
 *
 * Refused (nothing is extracted): no end record or bytes after it, multi-disk or zip64 archives,
 * encryption, methods other than stored/deflate, names that are not strict UTF-8 or that could
 * leave the target folder (absolute, `..`, `.`, empty segments, backslashes, drive letters,
 * control characters), symlinks and every other non-regular entry, duplicate names (also when
 * they differ only in case), local headers that disagree with the central directory, entries
 * whose bytes overlap, more than {@link ZipLimits.maxEntries} entries, a declared or actual size
 * over the limits, output that differs from the declared size, and a CRC mismatch.
 */
import { Inflate } from "fflate";
import { AstrionError, ValidationError } from "@/lib/contracts/errors";

/** Bounds of what one archive may hold. */
export interface ZipLimits {
  /** Entries, directories included. */
  maxEntries: number;
  /** Uncompressed bytes of all entries together. */
  maxTotalBytes: number;
  /** Uncompressed bytes of one entry. */
  maxEntryBytes: number;
  /** Bytes of one entry name. */
  maxNameBytes: number;
}

/** One file of an archive. */
export interface ZipFile {
  name: string;
  data: Uint8Array;
}

/** What {@link readZip} found. */
export interface ZipContents {
  files: ZipFile[];
  /** Names of directory entries (ending in `/`), which hold no data. */
  directories: string[];
}

const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
/** Compressed bytes handed to the inflater at once: at most ~1032× that comes out of one push. */
const INFLATE_SLICE = 4096;

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const HOST_UNIX = 3;

const utf8 = new TextDecoder("utf-8", { fatal: true });

function bad(message: string, entry?: string): never {
  throw new ValidationError(`The archive is not accepted: ${message}`, entry === undefined ? [{ path: "file", message }] : [{ path: entry, message }]);
}

function tooLarge(message: string): never {
  throw new AstrionError("payload_too_large", `The archive is not accepted: ${message}`);
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (ISO 3309, as zip uses) of `data`, continuing from the CRC of what came before it. */
export function crc32(data: Uint8Array, previous = 0): number {
  let c = (previous ^ 0xffffffff) >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Output bytes between two yields to the event loop while inflating or checking. */
const YIELD_BYTES = 1024 * 1024;

/** Lets other work run (requests, timers) in the middle of a long unpacking. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Why an entry name could not be extracted safely below a folder, or null when it can: relative,
 * `/`-separated, no empty, `.` or `..` segment, no backslash, drive letter or control character.
 */
export function unsafeEntryName(name: string): string | null {
  if (name === "") return "an empty name";
  if (/[\u0000-\u001f\u007f]/.test(name)) return "a control character in the name";
  if (name.includes("\\")) return "a backslash in the name";
  if (name.startsWith("/")) return "an absolute path";
  if (/^[A-Za-z]:/.test(name)) return "a drive letter";
  const segments = (name.endsWith("/") ? name.slice(0, -1) : name).split("/");
  if (segments.some((s) => s === "")) return "an empty path segment";
  if (segments.some((s) => s === "." || s === "..")) return "a '.' or '..' path segment";
  return null;
}

interface CentralEntry {
  name: string;
  nameBytes: Uint8Array;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  directory: boolean;
}

function findEndRecord(data: Uint8Array, view: DataView): number {
  if (data.length < EOCD_SIZE) bad("it is not a zip file (too short)");
  const lowest = Math.max(0, data.length - EOCD_SIZE - MAX_COMMENT);
  for (let at = data.length - EOCD_SIZE; at >= lowest; at--) {
    // The record must end exactly where the file does: no trailing bytes, no fake record in a comment.
    if (view.getUint32(at, true) === SIG_EOCD && at + EOCD_SIZE + view.getUint16(at + 20, true) === data.length) return at;
  }
  return bad("it is not a zip file (no end-of-central-directory record)");
}

function readCentral(data: Uint8Array, view: DataView, limits: ZipLimits): { entries: CentralEntry[]; cdOffset: number } {
  const eocd = findEndRecord(data, view);
  if (eocd >= 20 && view.getUint32(eocd - 20, true) === SIG_ZIP64_LOCATOR) bad("zip64 archives are not supported");
  const disk = view.getUint16(eocd + 4, true);
  const cdDisk = view.getUint16(eocd + 6, true);
  const onDisk = view.getUint16(eocd + 8, true);
  const count = view.getUint16(eocd + 10, true);
  const cdSize = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (disk !== 0 || cdDisk !== 0 || onDisk !== count) bad("multi-disk archives are not supported");
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) bad("zip64 archives are not supported");
  if (count > limits.maxEntries) tooLarge(`more than ${limits.maxEntries} entries`);
  if (cdOffset + cdSize > eocd) bad("the central directory lies outside the file");

  const entries: CentralEntry[] = [];
  let at = cdOffset;
  let declaredTotal = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > cdOffset + cdSize || view.getUint32(at, true) !== SIG_CENTRAL) bad("a broken central directory");
    const madeBy = view.getUint16(at + 4, true);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const external = view.getUint32(at + 38, true);
    const localOffset = view.getUint32(at + 42, true);
    const next = at + 46 + nameLength + extraLength + commentLength;
    if (next > cdOffset + cdSize) bad("a broken central directory");
    if (nameLength > limits.maxNameBytes) bad(`an entry name longer than ${limits.maxNameBytes} bytes`);
    const nameBytes = data.subarray(at + 46, at + 46 + nameLength);
    let name: string;
    try {
      name = utf8.decode(nameBytes);
    } catch {
      return bad("an entry name that is not UTF-8", `entry ${i + 1}`);
    }
    const unsafe = unsafeEntryName(name);
    if (unsafe) bad(unsafe, name);
    if (flags & 0x0001 || flags & 0x0040) bad("encrypted entries are not supported", name);
    if (method !== 0 && method !== 8) bad(`compression method ${method} is not supported (only stored and deflate)`, name);
    if (method === 0 && compressedSize !== size) bad("a stored entry whose sizes differ", name);
    const directory = name.endsWith("/");
    const type = (external >>> 16) & S_IFMT;
    // A Unix mode in the high word is believed whatever host the archive claims: tools that
    // extract links look at it, so a link is refused however it is labelled.
    if (type === S_IFLNK) bad("a symbolic link", name);
    if (madeBy >>> 8 === HOST_UNIX && type !== 0 && type !== (directory ? S_IFDIR : S_IFREG)) bad("an entry that is not a regular file", name);
    // MS-DOS attribute 0x10 marks a directory: a file entry claiming it is ambiguous.
    if (!directory && external & 0x10 && madeBy >>> 8 !== HOST_UNIX) bad("a file entry marked as a directory", name);
    if (directory && size !== 0) bad("a directory entry with contents", name);
    if (size > limits.maxEntryBytes) tooLarge(`${name} is larger than ${limits.maxEntryBytes} bytes`);
    declaredTotal += size;
    if (declaredTotal > limits.maxTotalBytes) tooLarge(`more than ${limits.maxTotalBytes} bytes uncompressed`);
    entries.push({ name, nameBytes, method, crc, compressedSize, size, localOffset, directory });
    at = next;
  }
  const seen = new Set<string>();
  for (const e of entries) {
    const key = e.name.toLowerCase();
    if (seen.has(key)) bad("a duplicate entry", e.name);
    seen.add(key);
  }
  return { entries, cdOffset };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Where an entry's data starts, after checking its local header against the central directory. */
function dataStart(data: Uint8Array, view: DataView, e: CentralEntry, cdOffset: number): number {
  const at = e.localOffset;
  if (at + 30 > cdOffset || view.getUint32(at, true) !== SIG_LOCAL) bad("a missing local header", e.name);
  const method = view.getUint16(at + 8, true);
  const nameLength = view.getUint16(at + 26, true);
  const extraLength = view.getUint16(at + 28, true);
  if (method !== e.method) bad("a local header that disagrees with the central directory", e.name);
  if (!sameBytes(data.subarray(at + 30, at + 30 + nameLength), e.nameBytes)) bad("a local header whose name differs from the central directory", e.name);
  const start = at + 30 + nameLength + extraLength;
  if (start + e.compressedSize > cdOffset) bad("entry data that runs into the central directory", e.name);
  return start;
}

async function inflateEntry(compressed: Uint8Array, e: CentralEntry): Promise<{ bytes: Uint8Array; crc: number }> {
  const out = new Uint8Array(e.size);
  let produced = 0;
  let crc = 0;
  let ended = false;
  const inflater = new Inflate((chunk, final) => {
    // Checked before copying: output past the declared size is a bomb, never buffered.
    if (produced + chunk.length > e.size) bad("more data than its declared size", e.name);
    out.set(chunk, produced);
    produced += chunk.length;
    crc = crc32(chunk, crc);
    if (final) ended = true;
  });
  let sinceYield = 0;
  try {
    for (let at = 0; at < compressed.length; at += INFLATE_SLICE) {
      const before = produced;
      inflater.push(compressed.subarray(at, Math.min(compressed.length, at + INFLATE_SLICE)), at + INFLATE_SLICE >= compressed.length);
      sinceYield += produced - before + INFLATE_SLICE;
      if (sinceYield >= YIELD_BYTES) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
    if (compressed.length === 0) inflater.push(new Uint8Array(0), true);
  } catch (error) {
    if (error instanceof AstrionError) throw error;
    bad("corrupt compressed data", e.name);
  }
  if (!ended || produced !== e.size) bad("less data than its declared size", e.name);
  return { bytes: out, crc };
}

async function storedEntry(raw: Uint8Array): Promise<{ bytes: Uint8Array; crc: number }> {
  let crc = 0;
  for (let at = 0; at < raw.length; at += YIELD_BYTES) {
    crc = crc32(raw.subarray(at, at + YIELD_BYTES), crc);
    if (at + YIELD_BYTES < raw.length) await yieldToEventLoop();
  }
  return { bytes: raw.slice(), crc };
}

/**
 * The files of a zip archive, checked as described above, in central-directory order.
 * @throws ValidationError (400) for an archive that is malformed or unsafe; AstrionError
 *   `payload_too_large` (413) past a limit.
 */
export async function readZip(data: Uint8Array, limits: ZipLimits): Promise<ZipContents> {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const { entries, cdOffset } = readCentral(data, view, limits);
  const ranges = entries.map((e) => ({ e, start: e.localOffset, end: dataStart(data, view, e, cdOffset) + e.compressedSize }));
  // Entries sharing bytes are the "overlapping files" zip bomb (one compressed stream counted many times).
  ranges.sort((a, b) => a.start - b.start);
  for (let i = 1; i < ranges.length; i++) if (ranges[i]!.start < ranges[i - 1]!.end) bad("entries that overlap", ranges[i]!.e.name);

  const files: ZipFile[] = [];
  const directories: string[] = [];
  for (const e of entries) {
    if (e.directory) {
      directories.push(e.name);
      continue;
    }
    const start = dataStart(data, view, e, cdOffset);
    const raw = data.subarray(start, start + e.compressedSize);
    const { bytes, crc } = e.method === 0 ? await storedEntry(raw) : await inflateEntry(raw, e);
    if (crc !== e.crc) bad("a CRC mismatch (the data is damaged)", e.name);
    files.push({ name: e.name, data: bytes });
  }
  return { files, directories };
}
