/**
 * The gateway's one job: translating between an API's dialect and the internal one, by declared
 * field renames, linear unit conversions and time formats. No business logic: values are renamed,
 * scaled and reformatted, never computed from each other. Pure.
 *
 * Paths are dotted; arrays on the way are walked element by element (`items.amt_cents` is the
 * field of every element of `items`, and a top-level array is walked the same way). Renames give
 * the full path in both dialects; unit and time mappings name the INTERNAL path.
 */
import { GatewayMappingError, describeFormat, checkTimezone, timeToApi, timeToInternal, tokenizePattern } from "./time";
import type { ApiTimeFormat, GatewayMappings } from "./schema";

type KeyMaps = Map<string, Map<string, string>>;

/** Mappings compiled for both directions. */
export interface CompiledMappings {
  /** API parent path → API key → internal key. */
  readonly toInternalKeys: KeyMaps;
  /** Internal parent path → internal key → API key. */
  readonly toApiKeys: KeyMaps;
  readonly units: ReadonlyMap<string, { factor: number; offset: number; unit?: string | undefined }>;
  readonly times: ReadonlyMap<string, ApiTimeFormat>;
}

function put(maps: KeyMaps, parent: string, from: string, to: string, rename: string): void {
  let m = maps.get(parent);
  if (!m) maps.set(parent, (m = new Map()));
  const known = m.get(from);
  if (known !== undefined && known !== to) throw new GatewayMappingError(`field renames disagree: ${parent ? `${parent}.` : ""}${from} is renamed to both ${known} and ${to} (${rename})`);
  for (const [other, target] of m) {
    if (other !== from && target === to) throw new GatewayMappingError(`field renames collide: ${other} and ${from} under ${parent || "the top level"} would both become ${to}`);
  }
  m.set(from, to);
}

/** Checks and compiles declared mappings; a contradiction is a {@link GatewayMappingError}. */
export function compileMappings(mappings: GatewayMappings): CompiledMappings {
  const toInternalKeys: KeyMaps = new Map();
  const toApiKeys: KeyMaps = new Map();
  for (const r of mappings.fields) {
    const a = r.api.split(".");
    const i = r.internal.split(".");
    const label = `${r.api} ↔ ${r.internal}`;
    for (let k = 0; k < a.length; k++) {
      put(toInternalKeys, a.slice(0, k).join("."), a[k]!, i[k]!, label);
      put(toApiKeys, i.slice(0, k).join("."), i[k]!, a[k]!, label);
    }
  }
  const units = new Map<string, { factor: number; offset: number; unit?: string | undefined }>();
  for (const u of mappings.units) {
    if (units.has(u.field)) throw new GatewayMappingError(`unit conversion of ${u.field} is declared twice`);
    units.set(u.field, { factor: u.factor, offset: u.offset, unit: u.unit });
  }
  const times = new Map<string, ApiTimeFormat>();
  for (const t of mappings.times) {
    if (times.has(t.field)) throw new GatewayMappingError(`time format of ${t.field} is declared twice`);
    if (units.has(t.field)) throw new GatewayMappingError(`${t.field} has both a unit conversion and a time format`);
    if (typeof t.api === "object") {
      tokenizePattern(t.api.pattern);
      checkTimezone(t.api.timezone);
    }
    times.set(t.field, t.api);
  }
  return { toInternalKeys, toApiKeys, units, times };
}

const join = (parent: string, key: string) => (parent ? `${parent}.${key}` : key);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Renames keys along `maps`, paths read in the source dialect. Two keys ending as one is an error. */
function renameKeys(value: unknown, maps: KeyMaps, parent: string): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, maps, parent));
  if (!isPlainObject(value)) return value;
  const m = maps.get(parent);
  const seen = new Map<string, string>();
  const entries: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value)) {
    const target = m?.get(k) ?? k;
    const clash = seen.get(target);
    if (clash !== undefined) throw new GatewayMappingError(`${join(parent, clash)} and ${join(parent, k)} would both become ${target}`);
    seen.set(target, k);
    entries.push([target, renameKeys(v, maps, join(parent, k))]);
  }
  // fromEntries defines own properties, so a key such as "__proto__" stays a plain key.
  return Object.fromEntries(entries);
}

/** Rounds away binary noise (12.34 × 100 = 1233.9999999999998 → 1234). */
const clean = (n: number) => Number(n.toPrecision(15));

function toNumber(value: unknown, path: string, side: string): number {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(value)) return Number(value);
  throw new GatewayMappingError(`${path}: ${JSON.stringify(value)} ${side} is not a number`);
}

type Direction = "toApi" | "toInternal";

function convertLeaf(value: unknown, path: string, m: CompiledMappings, dir: Direction): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return value.map((v) => convertLeaf(v, path, m, dir));
  const unit = m.units.get(path);
  if (unit) {
    const n = toNumber(value, path, dir === "toApi" ? "(internal)" : "from the API");
    return clean(dir === "toApi" ? n * unit.factor + unit.offset : (n - unit.offset) / unit.factor);
  }
  const format = m.times.get(path)!;
  return dir === "toApi" ? timeToApi(value, format, path) : timeToInternal(value, format, path);
}

/** Applies unit and time mappings to a value in the INTERNAL dialect's shape. */
function convertValues(value: unknown, m: CompiledMappings, dir: Direction, parent: string): unknown {
  if (Array.isArray(value)) return value.map((v) => convertValues(v, m, dir, parent));
  if (!isPlainObject(value)) return value;
  const entries: [string, unknown][] = [];
  for (const [k, v] of Object.entries(value)) {
    const path = join(parent, k);
    entries.push([k, m.units.has(path) || m.times.has(path) ? convertLeaf(v, path, m, dir) : convertValues(v, m, dir, path)]);
  }
  return Object.fromEntries(entries);
}

/** A value in the internal dialect (a tool call's arguments) → the API's: units and times first, then names. */
export function toApi(value: unknown, m: CompiledMappings): unknown {
  return renameKeys(convertValues(value, m, "toApi", ""), m.toApiKeys, "");
}

/** A value in the API's dialect (a response body) → the internal one: names first, then units and times. */
export function toInternal(value: unknown, m: CompiledMappings): unknown {
  return convertValues(renameKeys(value, m.toInternalKeys, ""), m, "toInternal", "");
}

/** The internal name of a top-level API name (a parameter's), and back. */
export function internalName(apiName: string, m: CompiledMappings): string {
  return m.toInternalKeys.get("")?.get(apiName) ?? apiName;
}

type Schema = Record<string, unknown>;

function describe(schema: Schema, note: string): string {
  const d = typeof schema.description === "string" ? schema.description.trim() : "";
  return d ? `${d} (${note})` : note;
}

/**
 * A JSON Schema in the API's dialect → the internal one: property names renamed (`required`
 * too), unit fields become numbers in the internal unit, time fields ISO 8601 strings. The API's
 * numeric bounds and formats of those fields are dropped: they are in the API's units.
 */
export function schemaToInternal(schema: unknown, m: CompiledMappings, apiParent = "", internalParent = ""): unknown {
  if (!isPlainObject(schema)) return schema;
  const out: Schema = { ...schema };
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    if (Array.isArray(schema[key])) out[key] = (schema[key] as unknown[]).map((s) => schemaToInternal(s, m, apiParent, internalParent));
  }
  if (isPlainObject(schema.items)) out.items = schemaToInternal(schema.items, m, apiParent, internalParent);
  if (isPlainObject(schema.properties)) {
    const names = m.toInternalKeys.get(apiParent);
    const entries: [string, unknown][] = [];
    for (const [k, v] of Object.entries(schema.properties)) {
      const ik = names?.get(k) ?? k;
      entries.push([ik, fieldSchema(v, m, join(apiParent, k), join(internalParent, ik))]);
    }
    out.properties = Object.fromEntries(entries);
    if (Array.isArray(schema.required)) out.required = (schema.required as unknown[]).map((r) => (typeof r === "string" ? (names?.get(r) ?? r) : r));
  }
  return out;
}

/** One property's schema: retyped when it is a unit or time field, else mapped further down. */
export function fieldSchema(schema: unknown, m: CompiledMappings, apiPath: string, internalPath: string): unknown {
  const s = isPlainObject(schema) ? schema : {};
  const unit = m.units.get(internalPath);
  const time = m.times.get(internalPath);
  const leaf = (inner: Schema): Schema => (s.type === "array" ? { type: "array", ...(s.description ? { description: s.description } : {}), items: inner } : inner);
  if (unit) {
    const inner = s.type === "array" && isPlainObject(s.items) ? s.items : s;
    return leaf({ type: "number", description: describe(inner, unit.unit ? `in ${unit.unit}` : "converted by the gateway") });
  }
  if (time) {
    const inner = s.type === "array" && isPlainObject(s.items) ? s.items : s;
    return leaf({ type: "string", format: "date-time", description: describe(inner, `ISO 8601 date-time with a zone; the API uses ${describeFormat(time)}`) });
  }
  return schemaToInternal(schema, m, apiPath, internalPath);
}
