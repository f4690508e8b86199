import { describe, expect, it } from "vitest";
import { redact, type RedactionKind } from "@/lib/redaction";
import { CORPUS_ACCOUNT_PATTERNS, NEGATIVE_SAMPLES, POSITIVE_SAMPLES, type Sample } from "@/test/helpers/memory/redact-corpus";

// A fixed clock, so an ID card's "birth year not in the future" check never drifts the figures.
const NOW = new Date("2026-07-11T00:00:00Z");

interface Tally {
  tp: number;
  fp: number;
  fn: number;
}

function score(samples: readonly Sample[]) {
  const perKind = new Map<RedactionKind, Tally>();
  const tally = (k: RedactionKind) => perKind.get(k) ?? perKind.set(k, { tp: 0, fp: 0, fn: 0 }).get(k)!;
  const misses: string[] = [];
  for (const s of samples) {
    const got = redact(s.text, { accountPatterns: CORPUS_ACCOUNT_PATTERNS, now: NOW }).spans;
    const key = (x: { kind: string; start: number; end: number }) => `${x.kind}:${x.start}:${x.end}`;
    const want = new Set(s.spans.map(key));
    const have = new Set(got.map(key));
    for (const x of got) {
      if (want.has(key(x))) tally(x.kind).tp++;
      else {
        tally(x.kind).fp++;
        misses.push(`FP ${x.kind} "${s.text.slice(x.start, x.end)}" in: ${s.text}`);
      }
    }
    for (const x of s.spans) {
      if (!have.has(key(x))) {
        tally(x.kind).fn++;
        misses.push(`FN ${x.kind} "${s.text.slice(x.start, x.end)}" in: ${s.text}`);
      }
    }
  }
  const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);
  const all = [...perKind.values()].reduce((a, t) => ({ tp: a.tp + t.tp, fp: a.fp + t.fp, fn: a.fn + t.fn }), { tp: 0, fp: 0, fn: 0 });
  const rows = [...perKind.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, t]) => ({ kind, expected: t.tp + t.fn, precision: ratio(t.tp, t.tp + t.fp), recall: ratio(t.tp, t.tp + t.fn) }));
  return { rows, precision: ratio(all.tp, all.tp + all.fp), recall: ratio(all.tp, all.tp + all.fn), all, misses };
}

describe("redaction corpus", () => {
  it("is big enough: at least 200 positive and 200 negative samples, Chinese included", () => {
    expect(POSITIVE_SAMPLES.length).toBeGreaterThanOrEqual(200);
    expect(NEGATIVE_SAMPLES.length).toBeGreaterThanOrEqual(200);
    expect(POSITIVE_SAMPLES.every((s) => s.spans.length > 0)).toBe(true);
    expect(NEGATIVE_SAMPLES.every((s) => s.spans.length === 0)).toBe(true);
    const cjk = /[\u4e00-\u9fff]/;
    expect(POSITIVE_SAMPLES.filter((s) => cjk.test(s.text)).length).toBeGreaterThanOrEqual(40);
    expect(NEGATIVE_SAMPLES.filter((s) => cjk.test(s.text)).length).toBeGreaterThanOrEqual(40);
    const kinds = new Set(POSITIVE_SAMPLES.flatMap((s) => s.spans.map((x) => x.kind)));
    expect([...kinds].sort()).toEqual(
      ["account_id", "api_key", "bank_card", "bearer_token", "email", "id_card", "ipv4", "ipv6", "jwt", "phone", "private_key", "secret"].sort(),
    );
  });

  it("reaches span-level precision and recall ≥ 0.95 over the whole corpus", () => {
    const r = score([...POSITIVE_SAMPLES, ...NEGATIVE_SAMPLES]);
    console.log(
      `redaction corpus: ${POSITIVE_SAMPLES.length} positive / ${NEGATIVE_SAMPLES.length} negative samples, ` +
        `${r.all.tp + r.all.fn} expected spans; precision ${r.precision.toFixed(4)}, recall ${r.recall.toFixed(4)}`,
    );
    console.table(r.rows.map((x) => ({ ...x, precision: x.precision.toFixed(4), recall: x.recall.toFixed(4) })));
    if (r.misses.length) console.log(r.misses.join("\n"));
    expect(r.precision).toBeGreaterThanOrEqual(0.95);
    expect(r.recall).toBeGreaterThanOrEqual(0.95);
  });

  it("masks nothing in the negative samples and leaves their text unchanged", () => {
    const leaked = NEGATIVE_SAMPLES.filter((s) => redact(s.text, { accountPatterns: CORPUS_ACCOUNT_PATTERNS, now: NOW }).text !== s.text);
    expect(leaked.map((s) => s.text).slice(0, 10)).toEqual([]);
    expect(leaked.length / NEGATIVE_SAMPLES.length).toBeLessThanOrEqual(0.05);
  });

  it("never leaves the content of an expected span in the masked text", () => {
    for (const s of POSITIVE_SAMPLES) {
      const out = redact(s.text, { accountPatterns: CORPUS_ACCOUNT_PATTERNS, now: NOW }).text;
      for (const x of s.spans) expect(out).not.toContain(s.text.slice(x.start, x.end));
    }
  });
});
