/**
 * Time formats of the gateway: the internal side is always ISO 8601 (written in UTC, `Z`), the
 * API side is epoch seconds, epoch milliseconds, ISO 8601 or a declared pattern read and written
 * in a declared zone. Pure (the zone rules come from the runtime's Intl data).
 */
import type { ApiTimeFormat } from "./schema";

/** A value that does not fit its declared format: the message names the field and the format. */
export class GatewayMappingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GatewayMappingError";
  }
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)$/;

function offsetMinutesOf(text: string): number {
  if (text === "Z" || text === "z") return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(text)!;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === "-" ? -minutes : minutes;
}

/** Epoch ms of a wall-clock time read as UTC, or NaN when a part is out of range (Feb 30, 25:00…). */
function wallToUtcMs(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number {
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || back.getUTCHours() !== h || back.getUTCMinutes() !== mi || back.getUTCSeconds() !== s) return Number.NaN;
  return t;
}

/** Epoch ms of an ISO 8601 date-time with a zone (`Z` or an offset), or null. */
export function parseIso(text: string): number | null {
  const m = ISO.exec(text.trim());
  if (!m) return null;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, "0")) : 0;
  const wall = wallToUtcMs(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0), ms);
  if (Number.isNaN(wall)) return null;
  return wall - offsetMinutesOf(m[8]!) * 60_000;
}

/** ISO 8601 in UTC, milliseconds only when there are some. */
function formatIso(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

/** Throws for a zone that is neither UTC, a fixed offset nor an IANA name the runtime knows. */
export function checkTimezone(zone: string): void {
  if (zone === "UTC" || /^[+-]\d{2}:?\d{2}$/.test(zone)) return;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
  } catch {
    throw new GatewayMappingError(`unknown timezone ${JSON.stringify(zone)} (use UTC, an offset such as +08:00, or an IANA name such as Asia/Shanghai)`);
  }
}

const partsCache = new Map<string, Intl.DateTimeFormat>();

/** The zone's offset from UTC in minutes at instant `ms`. */
function zoneOffsetAt(zone: string, ms: number): number {
  if (zone === "UTC") return 0;
  if (/^[+-]\d{2}:?\d{2}$/.test(zone)) return offsetMinutesOf(zone);
  let f = partsCache.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    partsCache.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

type Token = { kind: "field"; name: "YYYY" | "MM" | "DD" | "HH" | "mm" | "ss" | "SSS" | "ZZ" | "Z" } | { kind: "literal"; text: string };

const FIELD_TOKENS = ["YYYY", "SSS", "MM", "DD", "HH", "mm", "ss", "ZZ", "Z"] as const;

/** Splits a pattern into its fields and literal text; `[...]` is literal. Throws when it has no date. */
export function tokenizePattern(pattern: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < pattern.length) {
    if (pattern[i] === "[") {
      const end = pattern.indexOf("]", i);
      if (end < 0) throw new GatewayMappingError(`time pattern ${JSON.stringify(pattern)}: '[' without ']'`);
      tokens.push({ kind: "literal", text: pattern.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    const field = FIELD_TOKENS.find((t) => pattern.startsWith(t, i));
    if (field) {
      tokens.push({ kind: "field", name: field });
      i += field.length;
    } else {
      tokens.push({ kind: "literal", text: pattern[i]! });
      i += 1;
    }
  }
  const names = new Set(tokens.flatMap((t) => (t.kind === "field" ? [t.name] : [])));
  if (!names.has("YYYY") || !names.has("MM") || !names.has("DD")) throw new GatewayMappingError(`time pattern ${JSON.stringify(pattern)} needs YYYY, MM and DD`);
  return tokens;
}

const FIELD_REGEX: Record<string, string> = { YYYY: "(\\d{4})", MM: "(\\d{2})", DD: "(\\d{2})", HH: "(\\d{2})", mm: "(\\d{2})", ss: "(\\d{2})", SSS: "(\\d{3})", ZZ: "(Z|[+-]\\d{2}:\\d{2})", Z: "(Z|[+-]\\d{4})" };

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Epoch ms of `text` read with `pattern` in `zone` (an offset in the text wins), or null. */
export function parsePattern(text: string, pattern: string, zone: string): number | null {
  const tokens = tokenizePattern(pattern);
  const names: string[] = [];
  const source = tokens.map((t) => (t.kind === "literal" ? escapeRegex(t.text) : (names.push(t.name), FIELD_REGEX[t.name]!))).join("");
  const m = new RegExp(`^${source}$`).exec(text);
  if (!m) return null;
  const v: Record<string, string> = {};
  names.forEach((n, i) => (v[n] = m[i + 1]!));
  const wall = wallToUtcMs(Number(v.YYYY), Number(v.MM), Number(v.DD), Number(v.HH ?? 0), Number(v.mm ?? 0), Number(v.ss ?? 0), Number(v.SSS ?? 0));
  if (Number.isNaN(wall)) return null;
  const zoneText = v.ZZ ?? v.Z;
  if (zoneText !== undefined) return wall - offsetMinutesOf(zoneText) * 60_000;
  // A wall-clock time in a zone with daylight saving: guess with the offset at the wall time read
  // as UTC, then correct with the offset at the guess.
  const guess = wall - zoneOffsetAt(zone, wall) * 60_000;
  return wall - zoneOffsetAt(zone, guess) * 60_000;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

function offsetText(minutes: number, colon: boolean): string {
  const sign = minutes < 0 ? "-" : "+";
  const a = Math.abs(minutes);
  return `${sign}${pad(Math.floor(a / 60))}${colon ? ":" : ""}${pad(a % 60)}`;
}

/** Instant `ms` written with `pattern` in `zone`. */
export function formatPattern(ms: number, pattern: string, zone: string): string {
  const offset = zoneOffsetAt(zone, ms);
  const d = new Date(ms + offset * 60_000);
  const values: Record<string, string> = {
    YYYY: pad(d.getUTCFullYear(), 4),
    MM: pad(d.getUTCMonth() + 1),
    DD: pad(d.getUTCDate()),
    HH: pad(d.getUTCHours()),
    mm: pad(d.getUTCMinutes()),
    ss: pad(d.getUTCSeconds()),
    SSS: pad(d.getUTCMilliseconds(), 3),
    ZZ: offsetText(offset, true),
    Z: offsetText(offset, false),
  };
  return tokenizePattern(pattern)
    .map((t) => (t.kind === "literal" ? t.text : values[t.name]!))
    .join("");
}

/** How a format is named in messages and descriptions. */
export function describeFormat(format: ApiTimeFormat): string {
  return typeof format === "string" ? format : `${format.pattern} (${format.timezone})`;
}

function numeric(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  return null;
}

/** An API value in `format` → internal ISO 8601 (UTC). Throws a {@link GatewayMappingError} naming `field`. */
export function timeToInternal(value: unknown, format: ApiTimeFormat, field: string): string {
  let ms: number | null = null;
  if (format === "epoch_s" || format === "epoch_ms") {
    const n = numeric(value);
    ms = n === null ? null : format === "epoch_s" ? Math.round(n * 1000) : Math.round(n);
  } else if (typeof value === "string") {
    ms = format === "iso8601" ? parseIso(value) : parsePattern(value, format.pattern, format.timezone);
  }
  if (ms === null || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
    throw new GatewayMappingError(`${field}: ${JSON.stringify(value)} from the API does not match the declared time format ${describeFormat(format)}`);
  }
  return formatIso(ms);
}

/** An internal ISO 8601 value → the API's `format`. Throws a {@link GatewayMappingError} naming `field`. */
export function timeToApi(value: unknown, format: ApiTimeFormat, field: string): string | number {
  const ms = typeof value === "string" ? parseIso(value) : null;
  if (ms === null) throw new GatewayMappingError(`${field}: ${JSON.stringify(value)} is not an ISO 8601 date-time with a zone (e.g. 2026-01-31T12:00:00+08:00 or 2026-01-31T04:00:00Z)`);
  if (format === "epoch_ms") return ms;
  if (format === "epoch_s") return ms / 1000;
  if (format === "iso8601") return formatIso(ms);
  return formatPattern(ms, format.pattern, format.timezone);
}
