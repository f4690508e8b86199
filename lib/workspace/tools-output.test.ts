/**
 * The workspace tools against a real folder with more than fits in one result: what they return
 * is valid JSON within the output cap, accepted by the result's schema, with whole entries,
 * matches and lines, and a count of the rest.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListResultSchema, ReadResultSchema, SearchResultSchema } from "./results";
import { FileQueues } from "@/lib/store/atomic";
import { ProtectedFolders } from "./protected";
import { Workspace } from "./workspace";

// One process's workspace, as the composition root makes it.
const ws = new Workspace({ protectedFolders: new ProtectedFolders(), queues: new FileQueues() });

let proj: string;
const FILES = 30;
const LINES = 100;
/** Line `i` of every file under many/; every one holds the word atomic. */
const line = (f: number, i: number) => `export const atomic_${f}_${i} = "中文 \\"quoted\\" value"; // ${"x".repeat(i % 17)}`;
const LOG_LINES = 5000;
const logLine = (i: number) => `${i}\tevent "${i % 13 === 0 ? "中文字符" : "ok"}"\tatomic=${i % 2 === 0}`;

beforeAll(async () => {
  proj = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "astrion-output-")));
  await fs.mkdir(path.join(proj, "many"));
  for (let f = 0; f < FILES; f++) {
    await fs.writeFile(path.join(proj, "many", `f${String(f).padStart(2, "0")}.ts`), Array.from({ length: LINES }, (_, i) => line(f, i)).join("\n") + "\n");
  }
  await fs.mkdir(path.join(proj, "wide"));
  for (let i = 0; i < 600; i++) await fs.writeFile(path.join(proj, "wide", `entry-${String(i).padStart(4, "0")}.txt`), "x");
  await fs.writeFile(path.join(proj, "log.txt"), Array.from({ length: LOG_LINES }, (_, i) => logLine(i)).join("\n") + "\n");
});

afterAll(async () => {
  await fs.rm(proj, { recursive: true, force: true });
});

describe("search_files results", () => {
  it("keeps whole matches within the cap and counts every other match found, past maxMatches too", async () => {
    const total = FILES * LINES;
    for (const cap of [12_000, 4000, 1000, 200]) {
      const r = await ws.searchFiles(proj, "atomic", { path: "many", maxOutputChars: cap });
      const text = JSON.stringify(r);
      expect(text.length, `cap ${cap}`).toBeLessThanOrEqual(cap);
      expect(SearchResultSchema.parse(JSON.parse(text))).toEqual(r);
      expect(r.truncated).toBe(true);
      expect(r.filesScanned).toBe(FILES);
      expect(r.matches.length).toBeLessThanOrEqual(100);
      expect(r.omitted).toBe(total - r.matches.length);
      expect(r.note).toBe(`${total - r.matches.length} more matches not shown; narrow the query (a more specific word, or path/glob)`);
      // whole matches, the first ones, in order
      r.matches.forEach((m, k) => {
        const [f, i] = [Math.floor(k / LINES), k % LINES];
        expect(m).toEqual({ path: `many/f${String(f).padStart(2, "0")}.ts`, line: i + 1, text: line(f, i) });
      });
    }
  });

  it("a search that fits is as before: everything, nothing omitted", async () => {
    const r = await ws.searchFiles(proj, "atomic_3_7 ", { path: "many" });
    expect(r).toEqual({ matches: [{ path: "many/f03.ts", line: 8, text: line(3, 7) }], truncated: false, filesScanned: FILES });
  });

  it("a search stopped by maxFiles says the count is a lower bound", async () => {
    const r = await ws.searchFiles(proj, "atomic", { path: "many", maxFiles: 2, maxOutputChars: 2000 });
    expect(r.filesScanned).toBe(2);
    expect(r.omitted).toBe(2 * LINES - r.matches.length);
    expect(r.note).toMatch(/^at least \d+ more matches not shown/);
  });
});

describe("list_files results", () => {
  it("keeps whole entries within the cap and counts the rest", async () => {
    for (const cap of [12_000, 3000, 200]) {
      const r = await ws.listFiles(proj, "wide", { maxOutputChars: cap });
      const text = JSON.stringify(r);
      expect(text.length, `cap ${cap}`).toBeLessThanOrEqual(cap);
      expect(ListResultSchema.parse(JSON.parse(text))).toEqual(r);
      expect(r.entries.length).toBeLessThanOrEqual(200);
      expect(r.entries).toEqual(r.entries.map((_, i) => ({ path: `wide/entry-${String(i).padStart(4, "0")}.txt`, type: "file", size: 1 })));
      expect(r).toMatchObject({ truncated: true, omitted: 600 - r.entries.length, note: `${600 - r.entries.length} more files not shown; list a subfolder` });
    }
  });
});

describe("read_file results", () => {
  it("cuts a long file at a line boundary within the cap, saying which lines it shows of how many", async () => {
    const whole = await fs.readFile(path.join(proj, "log.txt"), "utf8");
    for (const cap of [12_000, 2500, 600]) {
      const r = await ws.readFile(proj, "log.txt", { maxOutputChars: cap });
      const text = JSON.stringify(r);
      expect(text.length, `cap ${cap}`).toBeLessThanOrEqual(cap);
      expect(ReadResultSchema.parse(JSON.parse(text))).toEqual(r);
      expect(r.truncated).toBe(true);
      expect(r.content.endsWith("\n")).toBe(true);
      expect(whole.startsWith(r.content)).toBe(true);
      expect(r.linesShown).toBe(r.content.split("\n").length - 1);
      expect(r.totalLines).toBe(LOG_LINES);
      expect(r.note).toBe(`lines 1-${r.linesShown} of ${LOG_LINES} shown; the rest was cut (read_file has no line range; search_files with this file as path finds text further on)`);
      // as many lines as fit: the next one would not
      expect(text.length + JSON.stringify(`${logLine(r.linesShown)}\n`).length - 2).toBeGreaterThan(cap);
    }
  });

  it("a file read whole but too long for the cap: cut at a line, its lines counted", async () => {
    const r = await ws.readFile(proj, "many/f07.ts", { maxOutputChars: 2000 });
    expect(JSON.stringify(r).length).toBeLessThanOrEqual(2000);
    expect(r).toMatchObject({ truncated: true, totalLines: LINES, note: `lines 1-${r.linesShown} of ${LINES} shown; the rest was cut (read_file has no line range; search_files with this file as path finds text further on)` });
    expect(r.content).toBe(Array.from({ length: r.linesShown }, (_, i) => `${line(7, i)}\n`).join(""));
    expect(r.linesShown).toBeGreaterThan(5);
    // and with room for it all, the whole file as before
    expect(await ws.readFile(proj, "many/f07.ts", { maxOutputChars: 50_000 })).toMatchObject({ truncated: false, linesShown: LINES, totalLines: LINES });
  });

  it("counts every line of a file larger than what it reads", async () => {
    const r = await ws.readFile(proj, "log.txt", { maxBytes: 1000, maxOutputChars: 50_000 });
    expect(r.totalLines).toBe(LOG_LINES);
    expect(r.content.endsWith("\n")).toBe(true);
    expect(r.linesShown).toBe(r.content.split("\n").length - 1);
    expect(Buffer.byteLength(r.content)).toBeLessThanOrEqual(1000);
  });
});
