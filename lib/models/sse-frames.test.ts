import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { boundedEvents, eventEnds, MAX_EVENT_BYTES, OversizeEvent } from "./sse-frames";
import { MAX_ANSWER_CHARS } from "./stream";

/** What `boundedEvents` hands on for a body read as `pieces`, read by read. */
async function bounded(pieces: Buffer[], limit?: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const chunk of boundedEvents(Readable.from(pieces), limit)) out.push(chunk);
  return out;
}

/** `text` cut at the given offsets. */
function cut(text: Buffer, at: number[]): Buffer[] {
  const bounds = [0, ...at.filter((n) => n > 0 && n < text.length).sort((a, b) => a - b), text.length];
  return bounds.slice(1).map((end, i) => text.subarray(bounds[i]!, end)).filter((b) => b.length > 0);
}

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("boundedEvents", () => {
  it("hands on every read as it came, whatever the reads, when no event is longer than the limit", async () => {
    const big = `data: ${JSON.stringify({ content: "x\n".repeat(50_000) })}`;
    const events = ["data: one", big, "event: note\r\ndata: two", "data: three", ": comment", "data: [DONE]"];
    const separators = ["\n\n", "\r\n\r\n", "\r\r", "\n\n", "\r\n\r\n", "\n\n"];
    const stream = Buffer.from(events.map((e, i) => e + separators[i]).join(""));
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const pieces = cut(stream, Array.from({ length: 1 + Math.floor(next() * 200) }, () => Math.floor(next() * stream.length)));
      const out = await bounded(pieces, big.length + 4);
      expect(out.length, `seed ${seed}`).toBe(pieces.length);
      expect(out.every((chunk, i) => chunk === pieces[i]), `seed ${seed}`).toBe(true);
    }
  });

  it("ends the body with OversizeEvent, and destroys it, once one event goes past the limit over many reads; one at the limit goes through", async () => {
    const body = Readable.from([Buffer.from("data: "), ...Array.from({ length: 10 }, () => Buffer.alloc(100, 0x61))]);
    const seen: Buffer[] = [];
    await expect(
      (async () => {
        for await (const chunk of boundedEvents(body, 1_000)) seen.push(chunk);
      })(),
    ).rejects.toBeInstanceOf(OversizeEvent);
    expect(seen).toHaveLength(10); // "data: " and 900 bytes; the next 100 make 1,006
    expect(body.destroyed).toBe(true);
    const atLimit = Buffer.concat([Buffer.from("data: "), Buffer.alloc(992, 0x61), Buffer.from("\n\n")]);
    expect(atLimit.length).toBe(1_000);
    expect(Buffer.concat(await bounded(cut(atLimit, [100, 500, 998]), 1_000)).equals(atLimit)).toBe(true);
    // in one read too, and with the next event's start after it
    await expect(bounded([Buffer.concat([Buffer.from("data: "), Buffer.alloc(1_000, 0x61), Buffer.from("\n\n")])], 1_000)).rejects.toBeInstanceOf(OversizeEvent);
    expect(await bounded([atLimit, Buffer.from("data: next")], 1_000)).toHaveLength(2);
  });

  it("counts an event from the end of the one before, also when that end is split across reads", async () => {
    const a = "a".repeat(15);
    // 15 + 4 bytes, then 15 + 2: each event within 20, the two together not
    expect(await bounded([`data:${a}\r\n`, `\r\ndata:${a}\n\n`].map((s) => Buffer.from(s)), 25)).toHaveLength(2);
    expect(await bounded([`data:${a}\r`, "\n", "\r", `\ndata:${a}\n\n`].map((s) => Buffer.from(s)), 25)).toHaveLength(4);
    await expect(bounded([`data:${a}\r\n`, `data:${a}\n\n`].map((s) => Buffer.from(s)), 25)).rejects.toBeInstanceOf(OversizeEvent);
    expect(eventEnds(Buffer.from("\n"), Buffer.from("\nrest\n\nmore"))).toEqual({ first: 1, last: 7 });
    // an end wholly inside what came before was looked for with the reads before
    expect(eventEnds(Buffer.from("\n\n"), Buffer.from("rest"))).toBeNull();
  });

  it("hands on a last event without an end when the body ends", async () => {
    expect((await bounded([Buffer.from("data: a\n\ndata: b")])).map(String)).toEqual(["data: a\n\ndata: b"]);
  });

  it("destroys the body when the reader stops early (the SDK's cancel)", async () => {
    const body = Readable.from([Buffer.from("data: a\n\n"), Buffer.from("data: b\n\n")]);
    const iterator = boundedEvents(body)[Symbol.asyncIterator]();
    expect(String((await iterator.next()).value)).toBe("data: a\n\n");
    await iterator.return?.();
    expect(body.destroyed).toBe(true);
  });

  it("allows an event as long as the largest answer with every character escaped", () => {
    expect(MAX_EVENT_BYTES).toBeGreaterThan(6 * MAX_ANSWER_CHARS);
  });
});
