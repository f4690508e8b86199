import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { auditPayload, summarizeForAudit } from "./audit";

describe("summarizeForAudit", () => {
  it("gives a stable preview, hash and length", () => {
    const s = summarizeForAudit("hello world");
    expect(s).toEqual({ preview: "hello world", sha256: "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9", length: 11 });
    expect(summarizeForAudit("hello world")).toEqual(s);
    expect(summarizeForAudit("")).toEqual({ preview: "", sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", length: 0 });
  });

  it("cuts the preview at n characters without splitting a character, and hashes the whole text", () => {
    const text = `${"审查".repeat(100)}😀 tail`;
    const s = summarizeForAudit(text, 201);
    expect(s.preview).toBe(`${"审查".repeat(100)}😀…`);
    expect(s.length).toBe(206);
    expect(s.sha256).not.toBe(summarizeForAudit(`${"审查".repeat(100)}😀 tail!`, 201).sha256);
    expect(summarizeForAudit("a\n\n  b", 120).preview).toBe("a b");
  });

  it("defaults to 120 characters", () => {
    expect(summarizeForAudit("x".repeat(500)).preview).toBe(`${"x".repeat(120)}…`);
  });
});

describe("auditPayload", () => {
  const long = "secret plan ".repeat(40);

  it("keeps event and control payloads in full", () => {
    const payload = { content: long, path: "a.ts" };
    expect(auditPayload("event", payload)).toBe(payload);
    expect(auditPayload("control", payload)).toBe(payload);
  });

  it("summarizes written text of request, reply and broadcast payloads, keeping ids", () => {
    const out = auditPayload("request", { id: "msg_tl_001", content: "short", nested: { answer: long, count: 3 }, items: [{ summary: "ok" }] });
    expect(out.id).toBe("msg_tl_001");
    expect(out.content).toEqual(summarizeForAudit("short"));
    expect((out.nested as Record<string, unknown>).answer).toEqual(summarizeForAudit(long));
    expect((out.nested as Record<string, unknown>).count).toBe(3);
    expect((out.items as Array<Record<string, unknown>>)[0]?.summary).toEqual(summarizeForAudit("ok"));
    expect(JSON.stringify(auditPayload("reply", { other: long }))).not.toContain(long);
    expect(JSON.stringify(auditPayload("broadcast", { content: long }))).not.toContain(long);
  });
});

describe("summarizeForAudit on long texts", () => {
  it("hashes and counts the whole text, however long, and previews only its start", () => {
    const text = `${"前".repeat(50_000)}😀${"x ".repeat(300_000)}the end`;
    const summary = summarizeForAudit(text);
    expect(summary.sha256).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    expect(summary.length).toBe(Array.from(text).length);
    expect(summary.preview).toBe(`${"前".repeat(120)}…`);
    // A change at the very end changes the hash: the audit proves the full text, not a summary.
    expect(summarizeForAudit(`${text}!`).sha256).not.toBe(summary.sha256);
  });
});

describe("summarizeForAudit on a huge text", () => {
  it("previews and counts a megabyte without flattening all of it", () => {
    const text = `${" ".repeat(500_000)}${"😀".repeat(250_000)}`;
    const s = summarizeForAudit(text);
    expect(s.length).toBe(750_000);
    expect(s.preview.endsWith("…")).toBe(true);
    expect(Array.from(s.preview).length).toBeLessThanOrEqual(121);
  });
});
