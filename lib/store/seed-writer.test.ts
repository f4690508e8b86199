import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TEMP_FILE_PATTERN } from "./atomic";
import { SeedWriter } from "./seed-writer";

let root: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-seed-writer-"));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(root, { recursive: true, force: true });
});

type Key = "meta" | "messages";

function writerFor(dir: string, texts: Record<Key, string>): SeedWriter<Key> {
  return new SeedWriter<Key>({ path: (k) => path.join(dir, k === "meta" ? "metadata.json" : "messages.json"), text: (k) => texts[k] }, "test");
}

describe("SeedWriter and a new sub-agent's folder", () => {
  it("makes the agent's folder (and agents/) on its first write, off the event loop (a create can wait for the journal), leaving no temp file", async () => {
    const conv = path.join(root, "conv");
    await fs.mkdir(conv);
    const agentDir = path.join(conv, "agents", "7");
    const mkdir = vi.spyOn(fs, "mkdir");
    const rm = vi.spyOn(fs, "rm");
    const writer = writerFor(agentDir, { meta: '{"agent_id": 7}', messages: '{"messages": []}' });
    writer.mark(["meta", "messages"]);
    await writer.all();
    expect(await fs.readFile(path.join(agentDir, "metadata.json"), "utf8")).toBe('{"agent_id": 7}');
    expect(await fs.readFile(path.join(agentDir, "messages.json"), "utf8")).toBe('{"messages": []}');
    // agents/, then the folder the two files are staged in, renamed into place
    expect(mkdir.mock.calls.map(([folder]) => path.relative(conv, String(folder)))).toEqual(["agents", expect.stringMatching(/^agents\/\.creating-7-[0-9a-f]{8}$/)]);
    expect(rm).not.toHaveBeenCalled();
    expect((await fs.readdir(agentDir)).filter((n) => TEMP_FILE_PATTERN.test(n))).toEqual([]);
    expect(await fs.readdir(path.join(conv, "agents"))).toEqual(["7"]);
    // a durable pass then has the new folders' names synced, and writes again into them
    writer.mark(["meta"]);
    await writer.all(true);
    expect(writer.pending).toBe(false);
  });

  it("makes a new folder whole: when one of its files cannot be written, neither appears (nor a staging folder), and both stay marked", async () => {
    const conv = path.join(root, "conv");
    await fs.mkdir(path.join(conv, "agents"), { recursive: true });
    const agentDir = path.join(conv, "agents", "4");
    // A text the file system refuses, for messages.json only: metadata.json is written first.
    const texts = { meta: '{"agent_id": 4}', messages: 42 as unknown as string };
    const writer = writerFor(agentDir, texts);
    writer.mark(["meta", "messages"]);
    await expect(writer.all()).rejects.toThrow();
    expect(await fs.readdir(path.join(conv, "agents"))).toEqual([]);
    expect(writer.pending).toBe(true);
    texts.messages = '{"messages": []}';
    await writer.all(true);
    expect((await fs.readdir(agentDir)).sort()).toEqual(["messages.json", "metadata.json"]);
    expect(await fs.readdir(path.join(conv, "agents"))).toEqual(["4"]);
  });

  it("writes straight into a new folder made meanwhile by someone else", async () => {
    const conv = path.join(root, "conv");
    const agentDir = path.join(conv, "agents", "5");
    await fs.mkdir(conv);
    const writer = writerFor(agentDir, { meta: "{}", messages: "[]" });
    const rename = fs.rename.bind(fs);
    vi.spyOn(fs, "rename").mockImplementation(async (from, to) => {
      if (String(to) === agentDir) {
        await fs.mkdir(agentDir);
        await fs.writeFile(path.join(agentDir, "notes.txt"), "x");
      }
      return rename(from, to);
    });
    writer.mark(["meta", "messages"]);
    await writer.all();
    expect((await fs.readdir(agentDir)).sort()).toEqual(["messages.json", "metadata.json", "notes.txt"]);
    expect(await fs.readdir(path.join(conv, "agents"))).toEqual(["5"]);
  });

  it("does not make again a conversation removed meanwhile (only its agents/ and the agent's folder are made)", async () => {
    const writer = writerFor(path.join(root, "gone", "agents", "3"), { meta: "{}", messages: "{}" });
    writer.mark(["meta"]);
    await expect(writer.all()).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.stat(path.join(root, "gone"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(writer.pending).toBe(true);
  });
});
