import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileQueues } from "@/lib/store/atomic";
import type { Embedder } from "@/lib/models";
import { entriesPath, indexPath } from "./memory-files";
import type { MemoryCandidate } from "./schema";
import { MemoryService } from "./service";

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "astrion-mem-"));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const noEmbedder = { queues: new FileQueues(), embedder: async () => null };
const reader = { project_path: "/p", role_id: "leader" };

function cand(statement: string, over: Partial<MemoryCandidate> = {}): MemoryCandidate {
  return { kind: "fact", statement, subject: "", project_path: "/p", level: "project", grant: [], source: { conversation_id: "conv_20260101_000000_001", message_ids: ["m1"] }, confidence: 0.7, ...over };
}

describe("MemoryService", () => {
  it("adds entries, writes entries.json in seed style, and recalls them by BM25 (English and Chinese)", async () => {
    const mem = new MemoryService(root, noEmbedder);
    const { added, updated } = await mem.upsert([
      cand("The payment service's order API is deprecated", { subject: "order API" }),
      cand("支付回调测试还没有覆盖并发场景", { kind: "open_issue", subject: "支付回调测试" }),
      cand("Answers should be concise with code examples", { kind: "preference", subject: "answer style", level: "public", project_path: null }),
    ]);
    expect(added).toHaveLength(3);
    expect(updated).toEqual([]);
    expect(added[0]!.id).toMatch(/^mem_/);
    const text = await fs.readFile(entriesPath(root), "utf8");
    expect(text).toContain('  "entries": [\n');
    expect(text).toContain("支付回调测试还没有覆盖并发场景"); // not escaped
    const en = await mem.recall({ text: "is the order API deprecated?", reader });
    expect(en[0]?.entry.statement).toBe("The payment service's order API is deprecated");
    const zh = await mem.recall({ text: "回调测试并发", reader });
    expect(zh[0]?.entry.kind).toBe("open_issue");
    expect(await mem.recall({ text: "", reader })).toEqual([]);
  });

  it("redacts before writing and stores the markers' kinds and offsets, never the content", async () => {
    const mem = new MemoryService(root, noEmbedder);
    const { added } = await mem.upsert([cand("Contact ops at ops@example.com or 13812345678", { subject: "ops contact" })]);
    const e = added[0]!;
    expect(e.statement).toBe("Contact ops at [redacted:email] or [redacted:phone]");
    expect(e.redactions.map((r) => [r.field, r.kind, e.statement.slice(r.start, r.end)])).toEqual([
      ["statement", "email", "[redacted:email]"],
      ["statement", "phone", "[redacted:phone]"],
    ]);
    const disk = await fs.readFile(entriesPath(root), "utf8");
    expect(disk).not.toContain("ops@example.com");
    expect(disk).not.toContain("13812345678");
  });

  it("uses the account-id patterns of models.json, and refuses to write with a bad one", async () => {
    await fs.writeFile(path.join(root, "models.json"), JSON.stringify({ default: "offline", models: {}, redaction: { account_patterns: ["acct_{digit:8}"] } }));
    const mem = new MemoryService(root, noEmbedder);
    const { added } = await mem.upsert([cand("The refund went to acct_12345678 yesterday")]);
    expect(added[0]!.statement).toBe("The refund went to [redacted:account_id] yesterday");
    await fs.writeFile(path.join(root, "models.json"), JSON.stringify({ default: "offline", models: {}, redaction: { account_patterns: ["{digit:8}"] } }));
    await expect(mem.upsert([cand("another acct_87654321")])).rejects.toThrow(/refused/);
    expect(await fs.readFile(entriesPath(root), "utf8")).not.toContain("87654321");
  });

  it("merges a duplicate and a contradiction into the older entry, with history, never adding twice", async () => {
    const mem = new MemoryService(root, noEmbedder);
    const [first] = (await mem.upsert([cand("The order API is deprecated", { subject: "order API", confidence: 0.5 })])).added;
    const dup = await mem.upsert([cand("the order API is deprecated.", { subject: "Order API", confidence: 0.5, source: { conversation_id: "conv_20260102_000000_001", message_ids: ["m7"] } })]);
    expect(dup.added).toEqual([]);
    expect(dup.updated[0]).toMatchObject({ id: first!.id, confidence: 0.75, source: { conversation_id: "conv_20260102_000000_001" } });
    expect(dup.updated[0]!.history.map((h) => h.reason)).toEqual(["duplicate"]);
    const contra = await mem.upsert([cand("The order API is not deprecated", { subject: "order API" })]);
    expect(contra.updated[0]).toMatchObject({ id: first!.id, statement: "The order API is not deprecated" });
    expect(contra.updated[0]!.history.map((h) => [h.reason, h.statement])).toEqual([
      ["duplicate", "The order API is deprecated"],
      ["contradiction", "The order API is deprecated"],
    ]);
    // one batch with the same conclusion twice: one entry
    const batch = await mem.upsert([cand("Deploys run on Fridays", { subject: "deploys" }), cand("deploys run on fridays", { subject: "deploys" })]);
    expect(batch.added).toHaveLength(1);
    expect(mem.size).toBe(2);
  });

  it("filters by access before the limit: a restricted entry reaches only granted roles", async () => {
    const mem = new MemoryService(root, noEmbedder);
    await mem.upsert([
      cand("salary table lives in finance db", { level: "restricted", grant: ["finance"], subject: "salary" }),
      cand("salary questions go to HR", { level: "public", project_path: null, subject: "salary routing" }),
      cand("salary export job runs nightly", { level: "project", project_path: "/other", subject: "salary export" }),
    ]);
    const leader = await mem.recall({ text: "salary", reader, limit: 1 });
    expect(leader.map((h) => h.entry.statement)).toEqual(["salary questions go to HR"]);
    const finance = await mem.recall({ text: "salary finance db", reader: { project_path: "/p", role_id: "finance" } });
    expect(finance.map((h) => h.entry.statement)).toContain("salary table lives in finance db");
    const other = await mem.recall({ text: "salary", reader: { project_path: "/other", role_id: "leader" } });
    expect(other.map((h) => h.entry.statement).sort()).toEqual(["salary export job runs nightly", "salary questions go to HR"]);
  });

  it("creates, edits (redacted, history), re-levels and deletes by hand", async () => {
    const mem = new MemoryService(root, noEmbedder);
    const { entry, action } = await mem.create({ kind: "fact", statement: "Staging is at 10.1.2.3", subject: "staging", project_path: "/p", level: "project", grant: [], confidence: 1 });
    expect(action).toBe("added");
    expect(entry.author).toBe("person");
    expect(entry.statement).toBe("Staging is at [redacted:ipv4]");
    const edited = await mem.update(entry.id, { statement: "Staging moved; ask admin@corp.example" });
    expect(edited.statement).toBe("Staging moved; ask [redacted:email]");
    expect(edited.redactions.map((r) => r.kind)).toEqual(["email"]);
    expect(edited.history.at(-1)).toMatchObject({ reason: "edit", statement: "Staging is at [redacted:ipv4]" });
    const relevelled = await mem.update(entry.id, { level: "restricted", grant: ["ops"] });
    expect(relevelled).toMatchObject({ level: "restricted", grant: ["ops"] });
    expect(relevelled.history.at(-1)?.reason).toBe("relevel");
    await expect(mem.update(entry.id, { level: "restricted", grant: [] })).rejects.toThrow(/grant/);
    await mem.remove(entry.id);
    await expect(mem.get(entry.id)).rejects.toThrow(/No memory entry/);
    await expect(mem.remove(entry.id)).rejects.toThrow(/No memory entry/);
  });

  it("reloads from disk, rebuilding a missing or outdated index and restoring a current one", async () => {
    const a = new MemoryService(root, noEmbedder);
    await a.upsert([cand("Redis holds the session cache", { subject: "sessions" })]);
    await a.saveIndex();
    const saved = JSON.parse(await fs.readFile(indexPath(root), "utf8"));
    expect(saved.entries_sha256).toMatch(/^[0-9a-f]{64}$/);
    const b = new MemoryService(root, noEmbedder);
    expect((await b.recall({ text: "session cache", reader }))[0]?.entry.statement).toBe("Redis holds the session cache");
    // entries.json edited by hand: the index no longer matches it and is rebuilt
    const file = JSON.parse(await fs.readFile(entriesPath(root), "utf8"));
    file.entries[0].statement = "Memcached holds the session cache";
    await fs.writeFile(entriesPath(root), JSON.stringify(file, null, 2));
    const c = new MemoryService(root, noEmbedder);
    expect((await c.recall({ text: "memcached", reader }))[0]?.entry.statement).toBe("Memcached holds the session cache");
    await fs.writeFile(indexPath(root), "{broken");
    const d = new MemoryService(root, noEmbedder);
    expect((await d.recall({ text: "memcached", reader })).length).toBe(1);
  });

  it("holds the entries in memory: a write never reads back entries.json", async () => {
    const mem = new MemoryService(root, noEmbedder);
    await mem.upsert([cand("first fact about the cache", { subject: "cache" })]);
    // The file is replaced behind the service's back; the next write is made from memory.
    await fs.writeFile(entriesPath(root), JSON.stringify({ version: 1, entries: [] }));
    await mem.upsert([cand("second fact about deploys", { subject: "deploys" })]);
    const disk = JSON.parse(await fs.readFile(entriesPath(root), "utf8"));
    expect(disk.entries.map((e: { statement: string }) => e.statement)).toEqual(["first fact about the cache", "second fact about deploys"]);
  });

  it("keeps a broken entries.json aside, reports it, and starts empty without losing it", async () => {
    await fs.mkdir(path.dirname(entriesPath(root)), { recursive: true });
    await fs.writeFile(entriesPath(root), '{"version": 1, "entries": [');
    const mem = new MemoryService(root, noEmbedder);
    await mem.ready();
    const notes = mem.notices();
    expect(notes[0]?.file).toBe("memory/entries.json");
    expect(notes[0]?.message).toMatch(/not valid JSON.*kept as memory\/entries\.json\.broken-/);
    const kept = (await fs.readdir(path.dirname(entriesPath(root)))).find((n) => n.startsWith("entries.json.broken-"))!;
    expect(await fs.readFile(path.join(root, "memory", kept), "utf8")).toBe('{"version": 1, "entries": [');
    await mem.upsert([cand("new fact after the repair")]);
    expect(mem.size).toBe(1);
    // a later start still says a broken copy waits to be merged back
    const again = new MemoryService(root, noEmbedder);
    await again.ready();
    expect(again.notices().map((n) => n.file)).toContain(`memory/${kept}`);
  });
});

describe("MemoryService with an embedding model", () => {
  function fakeEmbedder(calls: string[][], fail = { on: false }): Embedder {
    return {
      key: "emb",
      async embed(texts) {
        calls.push([...texts]);
        if (fail.on) throw new Error("HTTP 500");
        // two dimensions: "cache"-ness and "deploy"-ness, so a query without shared words can still match
        return texts.map((t) => [/cache|缓存|redis/i.test(t) ? 1 : 0.01, /deploy|发布|release/i.test(t) ? 1 : 0.01]);
      },
    };
  }

  it("embeds at write time, stores the vectors in the index, and ranks by vectors too", async () => {
    const calls: string[][] = [];
    const embedder = fakeEmbedder(calls);
    const mem = new MemoryService(root, { queues: new FileQueues(), embedder: async () => embedder });
    await mem.upsert([cand("Redis holds sessions", { subject: "sessions" }), cand("Releases go out on Fridays", { subject: "ship day" })]);
    expect(calls.at(-1)).toEqual(["sessions\nRedis holds sessions", "ship day\nReleases go out on Fridays"]);
    // no word in common with either entry: only the vectors can find it
    const hits = await mem.recall({ text: "缓存", reader });
    expect(hits.map((h) => h.entry.statement)).toEqual(["Redis holds sessions"]);
    await mem.saveIndex();
    const saved = JSON.parse(await fs.readFile(indexPath(root), "utf8"));
    expect(saved.embedding).toEqual({ key: "emb", dims: 2 });
    // a restart with the same model reuses the stored vectors: nothing is embedded again
    const before = calls.length;
    const again = new MemoryService(root, { queues: new FileQueues(), embedder: async () => embedder });
    await again.ready();
    expect(calls.length).toBe(before);
  });

  it("falls back to BM25 with a notice when embedding fails, and never fails the write", async () => {
    const calls: string[][] = [];
    const fail = { on: true };
    const mem = new MemoryService(root, { queues: new FileQueues(), embedder: async () => fakeEmbedder(calls, fail) });
    const { added } = await mem.upsert([cand("Redis holds sessions", { subject: "sessions" })]);
    expect(added).toHaveLength(1);
    expect((await mem.recall({ text: "redis", reader }))[0]?.entry.id).toBe(added[0]!.id);
    expect(mem.notices().some((n) => /falls back to BM25/.test(n.message))).toBe(true);
  });
});

describe("MemoryService and a broken models.json", () => {
  it("searches lexically and adds no problem of its own (models.json is reported by the registry)", async () => {
    const { CorruptFileError } = await import("@/lib/contracts/errors");
    const mem = new MemoryService(root, {
      queues: new FileQueues(),
      embedder: async () => {
        throw new CorruptFileError("models.json", "not valid JSON");
      },
    });
    await fs.writeFile(path.join(root, "models.json"), JSON.stringify({ default: "offline", models: {} }));
    await mem.upsert([cand("Redis holds sessions")]);
    expect((await mem.recall({ text: "redis", reader })).length).toBe(1);
    expect(mem.notices()).toEqual([]);
  });
});

describe("MemoryService: national phone numbers, vendor keys and private keys on both write paths", () => {
  // Each value was stored verbatim before these shapes were detected.
  const VALUES: Record<string, string> = {
    us: "(415) 555-2671",
    us_dashed: "415-555-2671",
    uk: "020 7946 0958",
    de: "030 12345678",
    cn: "010-12345678",
    stripe: "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    whsec: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    gitlab: "glpat-xY3kP9mQ2rT5vW8zA1bC",
    npm: "npm_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
    sendgrid: "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",
    twilio: "SK0123456789abcdef0123456789abcdef",
    hf: "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    telegram: "110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
    azure: "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
    pem: "-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\\n-----END RSA PRIVATE KEY-----",
  };
  const sentences = [
    `The support line is ${VALUES.us} and the backup is ${VALUES.us_dashed}`,
    `The London office answers on ${VALUES.uk}, Berlin on ${VALUES.de}`,
    `The Beijing desk is reachable at ${VALUES.cn} during office hours`,
    `Payments use ${VALUES.stripe} with webhook secret ${VALUES.whsec}`,
    `CI pushes with ${VALUES.gitlab} and publishes with ${VALUES.npm}`,
    `Mail goes through ${VALUES.sendgrid}, SMS through ${VALUES.twilio}`,
    `Models download with ${VALUES.hf}; alerts post via ${VALUES.telegram}`,
    `Backups go to AccountName=acme;AccountKey=${VALUES.azure}; deploys sign with "${VALUES.pem}"`,
  ];

  async function expectMasked(mem: MemoryService) {
    const disk = await fs.readFile(entriesPath(root), "utf8");
    for (const [name, value] of Object.entries(VALUES)) expect(disk, name).not.toContain(value.replace(/\\n/g, "\\\\n"));
    expect(disk).not.toContain("MIIEowIBAAKCAQEA");
    const kinds = new Set((await mem.list({ offset: 0, limit: 100 })).entries.flatMap((e) => e.redactions.map((r) => r.kind)));
    expect([...kinds].sort()).toEqual(["api_key", "phone", "private_key", "secret"]);
  }

  it("through the API (an entry a person adds)", async () => {
    const mem = new MemoryService(root, noEmbedder);
    // A distinct subject each, so that no two masked statements merge as duplicates.
    for (const [i, statement] of sentences.entries()) {
      await mem.create({ kind: "fact", statement, subject: ["support", "offices", "beijing", "payments", "ci", "mail", "models", "backups"][i]!, project_path: "/p", level: "project", grant: [], confidence: 1 });
    }
    expect(mem.size).toBe(sentences.length);
    await expectMasked(mem);
  });

  it("through the distiller (a sub-agent's report, distilled by rules, then written)", async () => {
    const { collectConclusions, distillByRules } = await import("./distill");
    const { formatAgentMessage } = await import("@/lib/contracts/messages");
    const agents = [{ agent_id: 1, role_id: "ops", display_name: "Ops_1" }];
    const body = `Findings:\n${sentences.map((x) => `- ${x}.`).join("\n")}`;
    const history = [{ role: "user" as const, content: formatAgentMessage("report", "Ops_1", "out_x_001", body), message_id: "m1", metadata: { message_source: "sub_agent" as const, agent_id: 1 } }];
    const candidates = distillByRules(collectConclusions(history, { agents }), { conversation_id: "conv_20260101_000000_001", project_path: "/p" });
    expect(candidates).toHaveLength(sentences.length);
    // Sensitive by the same detectors: restricted to the reporting role and the leader.
    expect(candidates.every((c) => c.level === "restricted")).toBe(true);
    const mem = new MemoryService(root, noEmbedder);
    await mem.upsert(candidates);
    await expectMasked(mem);
  });
});
