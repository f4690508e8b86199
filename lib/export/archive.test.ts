import { describe, expect, it } from "vitest";
import { AstrionError } from "@/lib/contracts/errors";
import { bodyLimitFor } from "@/lib/input-limits";
import { downloadName, exportEntries, exportManifest, readImportArchive, zipStream } from "./archive";
import { parseConversationFolder, rekeyFiles } from "./bundle";
import { IMPORT_LIMITS, MANIFEST_NAME } from "./schema";
import { craftZip, type CraftEntry } from "@/test/helpers/export/craft-zip";
import { FIXTURE_ID, fixtureFolder } from "@/test/helpers/export/folder";

const OTHER_ID = "conv_20260712_090000_002";

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return new Uint8Array(Buffer.concat(chunks));
}

function manifestEntry(ids: string[]): CraftEntry {
  return { name: MANIFEST_NAME, data: JSON.stringify(exportManifest(ids, "1.2.3")) };
}

/** A crafted export zip of the fixture folder, with `change` applied to its entries first. */
function crafted(change: (entries: CraftEntry[]) => CraftEntry[] = (e) => e, ids = [FIXTURE_ID]): Uint8Array {
  const entries: CraftEntry[] = [manifestEntry(ids)];
  for (const [rel, data] of fixtureFolder()) entries.push({ name: `${FIXTURE_ID}/${rel}`, data });
  return craftZip(change(entries));
}

async function refusal(data: Uint8Array): Promise<AstrionError> {
  try {
    await readImportArchive(data);
  } catch (error) {
    if (error instanceof AstrionError) return error;
    throw error;
  }
  throw new Error("the archive was accepted");
}

const text = (s: string) => new TextEncoder().encode(s);

describe("export zip", () => {
  it("round-trips: the zip written by zipStream reads back byte for byte", async () => {
    const files = fixtureFolder();
    const second = rekeyFiles(files, FIXTURE_ID, OTHER_ID);
    const zip = await collect(zipStream(exportEntries(exportManifest([FIXTURE_ID, OTHER_ID], "1.2.3"), [{ id: FIXTURE_ID, files }, { id: OTHER_ID, files: second }])));
    const archive = (await readImportArchive(zip));
    expect(archive.manifest).toMatchObject({ format: "astrion-conversations", format_version: 1, app_version: "1.2.3", conversation_ids: [FIXTURE_ID, OTHER_ID] });
    expect(archive.conversations.map((c) => c.id)).toEqual([FIXTURE_ID, OTHER_ID]);
    for (const [rel, data] of files) expect(Buffer.from(archive.conversations[0]!.files.get(rel)!).equals(Buffer.from(data))).toBe(true);
    expect(archive.conversations[1]!.metadata.id).toBe(OTHER_ID);
    expect(archive.conversations[0]!.agents.map((a) => a.meta.display_name)).toEqual(["Researcher_3"]);
  });

  it("accepts directory entries along the layout", async () => {
    const zip = crafted((e) => [{ name: `${FIXTURE_ID}/` }, { name: `${FIXTURE_ID}/agents/` }, { name: `${FIXTURE_ID}/agents/3/` }, ...e]);
    expect((await readImportArchive(zip)).conversations).toHaveLength(1);
  });

  it("bounds an import body by the same limit as the body guard", () => {
    expect(bodyLimitFor("POST", "/api/conversations/import")).toBe(IMPORT_LIMITS.maxZipBytes);
  });
});

describe("import validation", () => {
  it("needs the manifest, and its ids must be exactly the folders", async () => {
    expect((await refusal(crafted((e) => e.slice(1)))).message).toMatch(/astrion-export\.json: is missing/);
    expect((await refusal(crafted((e) => e, [FIXTURE_ID, OTHER_ID]))).message).toMatch(/listed in the manifest but missing/);
    expect((await refusal(crafted((e) => [manifestEntry([OTHER_ID]), ...e.slice(1)], [OTHER_ID]))).message).toMatch(/not listed in the manifest/);
    expect((await refusal(crafted((e) => [{ name: MANIFEST_NAME, data: '{"format":"zip"}' }, ...e.slice(1)]))).message).toMatch(/not an Astrion export manifest/);
  });

  it("refuses unknown files, files outside a conversation folder, and folders off the layout", async () => {
    expect((await refusal(crafted((e) => [...e, { name: `${FIXTURE_ID}/steps.jsonl`, data: "{}\n" }]))).message).toMatch(/steps\.jsonl: is not a file of a conversation folder/);
    expect((await refusal(crafted((e) => [...e, { name: `${FIXTURE_ID}/agents/3/notes.md`, data: "x" }]))).message).toMatch(/not a file of a conversation folder/);
    expect((await refusal(crafted((e) => [...e, { name: `${FIXTURE_ID}/agents/03/metadata.json`, data: "{}" }]))).message).toMatch(/not a file of a conversation folder/);
    expect((await refusal(crafted((e) => [...e, { name: "readme.txt", data: "x" }]))).message).toMatch(/outside any conversation folder/);
    expect((await refusal(crafted((e) => [...e, { name: "../../etc/cron.d/x", data: "x" }]))).status).toBe(400);
    expect((await refusal(crafted((e) => [...e, { name: `${FIXTURE_ID}/other/` }]))).message).toMatch(/not a folder of the layout/);
  });

  it("refuses a folder whose name is not a conversation id", async () => {
    const zip = craftZip([manifestEntry([FIXTURE_ID]), { name: "conv_1/metadata.json", data: "{}" }]);
    expect((await refusal(zip)).message).toMatch(/outside any conversation folder/);
  });

  it("refuses bad JSON, JSON off its schema, deep nesting and text that is not UTF-8", async () => {
    const swap = (rel: string, data: Uint8Array | string) => (e: CraftEntry[]) => e.map((x) => (x.name === `${FIXTURE_ID}/${rel}` ? { ...x, data } : x));
    expect((await refusal(crafted(swap("messages.json", "{not json")))).message).toMatch(/messages\.json: is not valid JSON/);
    expect((await refusal(crafted(swap("agents/3/metadata.json", JSON.stringify({ agent_id: 3 }))))).message).toMatch(/agents\/3\/metadata\.json: does not fit its format/);
    expect((await refusal(crafted(swap("shared_context.json", '{"version":2}')))).message).toMatch(/shared_context\.json: does not fit/);
    expect((await refusal(crafted(swap("timeline.jsonl", '{"turn_id":"x"}\n')))).message).toMatch(/timeline\.jsonl line 1: does not fit/);
    expect((await refusal(crafted(swap("messages.json", `${"[".repeat(100)}${"]".repeat(100)}`)))).message).toMatch(/nests deeper/);
    expect((await refusal(crafted(swap("messages.json", new Uint8Array([0x7b, 0xff, 0x7d]))))).message).toMatch(/not UTF-8/);
  });

  it("refuses mismatched ids: metadata vs folder, messages vs folder, agent files vs their folder, agents not listed", async () => {
    const files = fixtureFolder();
    const edit = (rel: string, fn: (v: Record<string, unknown>) => void) => (e: CraftEntry[]) =>
      e.map((x) => {
        if (x.name !== `${FIXTURE_ID}/${rel}`) return x;
        const value = JSON.parse(new TextDecoder().decode(files.get(rel)!)) as Record<string, unknown>;
        fn(value);
        return { ...x, data: JSON.stringify(value) };
      });
    expect((await refusal(crafted(edit("metadata.json", (v) => (v.id = OTHER_ID))))).message).toMatch(/metadata\.json: its id .* does not match its folder/);
    expect((await refusal(crafted(edit("messages.json", (v) => (v.id = OTHER_ID))))).message).toMatch(/messages\.json: its id/);
    expect((await refusal(crafted(edit("agents/3/metadata.json", (v) => (v.agent_id = 4))))).message).toMatch(/agent_id 4 does not match its folder/);
    expect((await refusal(crafted(edit("agents/3/messages.json", (v) => (v.agent_id = 9))))).message).toMatch(/agent_id 9 does not match/);
    expect((await refusal(crafted(edit("metadata.json", (v) => (v.agent_ids = []))))).message).toMatch(/agent_ids does not list agent 3/);
    expect((await refusal(crafted((e) => e.filter((x) => x.name !== `${FIXTURE_ID}/agents/3/messages.json`)))).message).toMatch(/needs both/);
    expect((await refusal(crafted((e) => e.filter((x) => x.name !== `${FIXTURE_ID}/messages.json`)))).message).toMatch(/messages\.json: is missing/);
  });

  it("refuses a symlink entry inside a conversation folder", async () => {
    const zip = crafted((e) => [...e, { name: `${FIXTURE_ID}/context.jsonl`, data: "/etc/passwd", method: 0, external: (0o120777 << 16) >>> 0 }]);
    expect((await refusal(zip)).message).toMatch(/symbolic link/);
  });
});

describe("rekeyFiles", () => {
  it("rewrites every whole-token occurrence of the id, and the result checks", () => {
    const files = fixtureFolder({ userText: `see ${FIXTURE_ID} and ${FIXTURE_ID}9 and x${FIXTURE_ID}` });
    const out = rekeyFiles(files, FIXTURE_ID, OTHER_ID);
    const folder = parseConversationFolder(OTHER_ID, out, { strict: true });
    expect(folder.metadata.id).toBe(OTHER_ID);
    expect(folder.leader.id).toBe(OTHER_ID);
    expect(folder.leader.messages[1]!.content).toBe(`see ${OTHER_ID} and ${FIXTURE_ID}9 and x${FIXTURE_ID}`);
    expect([...out.values()].some((d) => new TextDecoder().decode(d).includes(`"${FIXTURE_ID}"`))).toBe(false);
  });

  it("leaves a checked folder unchanged under the same id", () => {
    const files = fixtureFolder();
    expect(parseConversationFolder(FIXTURE_ID, files, { strict: true }).files.size).toBe(files.size);
    expect(() => parseConversationFolder(FIXTURE_ID, new Map([...files, ["x", text("y")]]), { strict: true })).toThrow(/unknown files are refused/);
    expect(parseConversationFolder(FIXTURE_ID, new Map([...files, ["x", text("y")]]), { strict: false }).files.has("x")).toBe(false);
  });
});

describe("downloadName", () => {
  it("keeps only ASCII letters and digits of the title, so the header cannot be broken", () => {
    expect(downloadName(FIXTURE_ID, 'a"; filename=evil.exe\r\nX-Injected: y', "md")).toBe(`${FIXTURE_ID}-a-filename-evil-exe-x-injected-y.md`);
    expect(downloadName(FIXTURE_ID, "落地页评审", "zip")).toBe(`${FIXTURE_ID}.zip`);
    expect(downloadName(FIXTURE_ID, "Café ../../etc", "md")).toBe(`${FIXTURE_ID}-cafe-etc.md`);
    expect(downloadName(FIXTURE_ID, "x".repeat(100), "md")).toBe(`${FIXTURE_ID}-${"x".repeat(60)}.md`);
  });
});
