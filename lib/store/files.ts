/**
 * Reading and writing the JSON files of the on-disk contract: every read is parsed with the
 * file's schema, every write is validated first, written as Python-style JSON and replaced
 * atomically. A file that exists but cannot be used is reported as a CorruptFileError naming the
 * file and what is wrong, and is never overwritten here.
 */
import "server-only";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { CorruptFileError, NotFoundError, ValidationError, zodIssues } from "@/lib/contracts/errors";
import { writeFileAtomic, writeFileAtomicUnlocked, writeNewFileDurable, type FileQueues } from "./atomic";
import { toPythonJsonBytes } from "./json";
import { hasOwnKey, setOwn } from "@/lib/own";

/** Describes zod issues in one line: `agent_ids.0: expected number, received string; …`. */
export function describeZodIssues(error: z.ZodError, max = 5): string {
  const issues = zodIssues(error);
  const shown = issues.slice(0, max).map((i) => `${i.path || "(top level)"}: ${i.message}`);
  if (issues.length > max) shown.push(`and ${issues.length - max} more`);
  return shown.join("; ");
}

class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/**
 * Finds where JSON text first goes wrong. Only run after `JSON.parse` failed, to name a position
 * in every case (V8's messages give one only for some errors).
 */
function locateJsonError(text: string): JsonSyntaxError | null {
  let i = 0;
  const fail = (what: string): never => {
    const found = i < text.length ? `${JSON.stringify(text[i])}` : "end of file";
    throw new JsonSyntaxError(`expected ${what} but found ${found}`, i);
  };
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i] as string)) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail(`"${word}"`);
      i++;
    }
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      const ch = text[i];
      if (ch === undefined) fail("a closing quote");
      else if (ch === '"') {
        i++;
        return;
      } else if (ch === "\\") {
        const esc = text[i + 1];
        if (esc !== undefined && '"\\/bfnrt'.includes(esc)) i += 2;
        else if (esc === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else {
          i++;
          fail("a valid escape sequence");
        }
      } else if (ch < " ") fail("no control character inside a string");
      else i++;
    }
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail("a number");
    else i += m[0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === "{") {
      i++;
      ws();
      if (text[i] === "}") {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("a double-quoted property name");
        string();
        ws();
        if (text[i] !== ":") fail("':'");
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return;
        } else fail("',' or '}'");
      }
    } else if (ch === "[") {
      i++;
      ws();
      if (text[i] === "]") {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return;
        } else fail("',' or ']'");
      }
    } else if (ch === '"') string();
    else if (ch === "t") literal("true");
    else if (ch === "f") literal("false");
    else if (ch === "n") literal("null");
    else if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) number();
    else fail("a JSON value");
  };
  try {
    value();
    ws();
    if (i < text.length) fail("end of file");
    return null;
  } catch (error) {
    if (error instanceof JsonSyntaxError) return error;
    throw error;
  }
}

/** `line L, column C` (both from 1) of a character offset. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return `line ${line}, column ${column}`;
}

/**
 * Parses JSON text, or says exactly where it is broken:
 * `not valid JSON: expected ',' or '}' but found "]" at line 3, column 5 (position 27)`.
 */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (text.trim() === "") return { ok: false, reason: "the file is empty" };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const located = locateJsonError(text);
    if (located) {
      return {
        ok: false,
        reason: `not valid JSON: ${located.message} at ${lineAndColumn(text, located.offset)} (position ${located.offset})`,
      };
    }
    return { ok: false, reason: `not valid JSON: ${(error as Error).message}` };
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The schema's output with the key order of `raw`: zod puts known keys first, but a file written
 * by hand or by another tool should keep its order through a read-modify-write.
 */
function withOriginalOrder<T>(raw: unknown, parsed: T): T {
  if (Array.isArray(raw) && Array.isArray(parsed)) {
    return parsed.map((item, i) => withOriginalOrder(raw[i], item)) as T;
  }
  if (!isPlainObject(raw) || !isPlainObject(parsed)) return parsed;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    // Own keys only: a `__proto__` key in the file (which the schema dropped) must not become
    // this object's prototype, nor `constructor` an inherited value.
    if (hasOwnKey(parsed, key)) setOwn(out, key, withOriginalOrder(raw[key], parsed[key]));
  }
  for (const key of Object.keys(parsed)) {
    if (!hasOwnKey(out, key)) setOwn(out, key, parsed[key]);
  }
  return out as T;
}

/**
 * Reads `file` and parses it with `schema`.
 * @throws NotFoundError when the file (or its folder) does not exist.
 * @throws CorruptFileError naming the file and the problem (JSON syntax error with its position,
 *   or the schema issues with their paths) when it exists but cannot be used.
 */
export async function readJsonFile<S extends z.ZodType>(file: string, schema: S): Promise<z.output<S>> {
  let text: string;
  try {
    text = await fs.readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new NotFoundError(`${path.basename(file)} does not exist`, { file });
    }
    if (code === "EISDIR") throw new CorruptFileError(file, "is a folder, not a file", { cause: error });
    throw error;
  }
  // A byte-order mark (left by some Windows editors) is not part of the JSON.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const json = parseJsonText(text);
  if (!json.ok) throw new CorruptFileError(file, json.reason);
  const result = schema.safeParse(json.value);
  if (!result.success) {
    throw new CorruptFileError(file, `does not match its schema: ${describeZodIssues(result.error)}`, {
      cause: result.error,
    });
  }
  return withOriginalOrder(json.value, result.data);
}

/** Validates `value` with `schema` and returns the JSON text to write, as UTF-8 bytes. */
function serialize<S extends z.ZodType>(file: string, value: z.output<S>, schema: S): Buffer {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new ValidationError(
      `Refusing to write ${path.basename(file)}: ${describeZodIssues(result.error)}`,
      zodIssues(result.error),
    );
  }
  return toPythonJsonBytes(withOriginalOrder(value, result.data));
}

/**
 * Writes `value` to `file` atomically as Python-style JSON (`ensure_ascii=False`, indent 2),
 * after checking it against `schema`, so a bad value is never written; queued in `queues` behind
 * other writes to it.
 * @throws ValidationError when `value` does not fit `schema` (nothing is written).
 */
export async function writeJsonAtomic<S extends z.ZodType>(queues: FileQueues, file: string, value: z.output<S>, schema: S): Promise<void> {
  await writeFileAtomic(queues, file, serialize(file, value, schema));
}

/**
 * Writes `value` as a new file of a staging folder (checked against `schema`, fsynced; no rename,
 * no folder sync: ./atomic.ts `writeNewFileDurable`).
 * @throws ValidationError when `value` does not fit `schema` (nothing is written).
 */
export async function writeJsonNewDurable<S extends z.ZodType>(file: string, value: z.output<S>, schema: S): Promise<void> {
  await writeNewFileDurable(file, serialize(file, value, schema));
}

/**
 * Like {@link writeJsonAtomic} but without queueing: for callers that already hold the file's
 * lock (`queues.withFileLock(path.resolve(file), …)`), which would otherwise wait on themselves.
 */
export async function writeJsonAtomicUnlocked<S extends z.ZodType>(
  file: string,
  value: z.output<S>,
  schema: S,
): Promise<void> {
  await writeFileAtomicUnlocked(path.resolve(file), serialize(file, value, schema));
}

/** Options of {@link updateJsonFile}. */
export interface UpdateJsonOptions<T> {
  /** The value to start from when the file does not exist; without it a missing file is a NotFoundError. */
  create?: () => T;
}

/**
 * Read-modify-write of one JSON file, queued in `queues` behind every other write to the same
 * path (so concurrent updates never lose one another's changes). `fn` gets the current value
 * and returns the new one; the result is validated and written atomically, then returned.
 * A corrupt file is not replaced: its CorruptFileError propagates.
 */
export async function updateJsonFile<S extends z.ZodType>(
  queues: FileQueues,
  file: string,
  schema: S,
  fn: (current: z.output<S>) => z.output<S> | Promise<z.output<S>>,
  opts: UpdateJsonOptions<z.output<S>> = {},
): Promise<z.output<S>> {
  const abs = path.resolve(file);
  return queues.withFileLock(abs, async () => {
    let current: z.output<S>;
    try {
      current = await readJsonFile(abs, schema);
    } catch (error) {
      if (!(error instanceof NotFoundError) || !opts.create) throw error;
      current = opts.create();
    }
    const next = await fn(current);
    await writeFileAtomicUnlocked(abs, serialize(abs, next, schema));
    return next;
  });
}
