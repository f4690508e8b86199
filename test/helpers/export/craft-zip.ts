/**
 * Builds zip archives byte by byte for tests, including the malformed and hostile ones no zip
 * library would write: lying sizes, symlinks, names that leave the folder, overlapping entries.
 */
import { deflateSync } from "fflate";
import { crc32 } from "@/lib/export/zip-read";

/** One entry of a crafted archive. */
export interface CraftEntry {
  /** The name, as text (UTF-8) or raw bytes. */
  name: string | Uint8Array;
  data?: Uint8Array | string;
  /** 0 stored, 8 deflate (default). */
  method?: number;
  /** The uncompressed size declared in the central directory (default: the real one). */
  declaredSize?: number;
  /** The CRC declared (default: the real one). */
  crc?: number;
  /** Central-directory "version made by" (default 0x031e: Unix). */
  madeBy?: number;
  /** External attributes (default: a regular file, mode 0644; 0o040755 for a name ending in `/`). */
  external?: number;
  /** General-purpose flags (default 0x0800: UTF-8 names). */
  flags?: number;
  /** A different name in the local header. */
  localName?: string;
  /** Point this entry's central record at the local header of entry `n` (overlap). */
  sameDataAs?: number;
}

const enc = new TextEncoder();

function u16(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff];
}
function u32(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
}

/** A zip archive of `entries` (no comment unless `comment` is given; `trailing` bytes appended after it). */
export function craftZip(entries: CraftEntry[], opts: { comment?: string; trailing?: Uint8Array } = {}): Uint8Array {
  const out: number[] = [];
  const central: number[] = [];
  const offsets: number[] = [];
  for (const e of entries) {
    const name = typeof e.name === "string" ? enc.encode(e.name) : e.name;
    const raw = typeof e.data === "string" ? enc.encode(e.data) : e.data ?? new Uint8Array(0);
    const method = e.method ?? 8;
    const body = method === 8 ? deflateSync(raw) : raw;
    const crc = e.crc ?? crc32(raw);
    const size = e.declaredSize ?? raw.length;
    const flags = e.flags ?? 0x0800;
    const localName = e.localName === undefined ? name : enc.encode(e.localName);
    const offset = e.sameDataAs === undefined ? out.length : offsets[e.sameDataAs]!;
    offsets.push(offset);
    if (e.sameDataAs === undefined) {
      out.push(...u32(0x04034b50), ...u16(20), ...u16(flags), ...u16(method), ...u16(0), ...u16(0x21), ...u32(crc), ...u32(body.length), ...u32(size), ...u16(localName.length), ...u16(0), ...localName, ...body);
    }
    const directory = typeof e.name === "string" && e.name.endsWith("/");
    const external = e.external ?? ((directory ? 0o040755 : 0o100644) << 16) >>> 0;
    central.push(
      ...u32(0x02014b50), ...u16(e.madeBy ?? 0x031e), ...u16(20), ...u16(flags), ...u16(method), ...u16(0), ...u16(0x21),
      ...u32(crc), ...u32(body.length), ...u32(size), ...u16(name.length), ...u16(0), ...u16(0), ...u16(0), ...u16(0),
      ...u32(external), ...u32(offset), ...name,
    );
  }
  const cdOffset = out.length;
  out.push(...central);
  const comment = enc.encode(opts.comment ?? "");
  out.push(...u32(0x06054b50), ...u16(0), ...u16(0), ...u16(entries.length), ...u16(entries.length), ...u32(central.length), ...u32(cdOffset), ...u16(comment.length), ...comment);
  if (opts.trailing) out.push(...opts.trailing);
  return new Uint8Array(out);
}
