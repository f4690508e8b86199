import { describe, expect, it } from "vitest";
import { eventEnds, eventFrames, MAX_EVENT_BYTES, OversizeEvent } from "./sse-frames";
import { MAX_ANSWER_CHARS } from "./stream";

/** What `eventFrames` hands on for `pieces`, chunk by chunk (flowing, so no two chunks are read as one). */
async function framed(pieces: Buffer[], limit?: number): Promise<Buffer[]> {
  const frames = eventFrames(limit);
  const out: Buffer[] = [];
  frames.on("data", (chunk: Buffer) => out.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    frames.on("end", resolve);
    frames.on("error", reject);
  });
  for (const piece of pieces) if (!frames.destroyed) frames.write(piece);
  if (!frames.destroyed) frames.end();
  await ended;
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

const endsAnEvent = (b: Buffer) => /(\n\n|\r\r|\r\n\r\n)$/.test(b.toString("latin1"));

describe("eventFrames", () => {
  it("hands on every byte, in order, in chunks that end where an event ends, whatever the reads", async () => {
    const big = `data: ${JSON.stringify({ content: "x\n".repeat(50_000) })}`;
    const events = ["data: one", big, "event: note\r\ndata: two", "data: three", ": comment", "data: [DONE]"];
    const separators = ["\n\n", "\r\n\r\n", "\r\r", "\n\n", "\r\n\r\n", "\n\n"];
    const stream = Buffer.from(events.map((e, i) => e + separators[i]).join(""));
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const offsets = Array.from({ length: 1 + Math.floor(next() * 200) }, () => Math.floor(next() * stream.length));
      const out = await framed(cut(stream, offsets));
      expect(Buffer.concat(out).equals(stream), `seed ${seed}`).toBe(true);
      for (const chunk of out) expect(endsAnEvent(chunk), `seed ${seed}: ${JSON.stringify(chunk.toString().slice(-8))}`).toBe(true);
    }
  });

  it("gives an event that arrives in a thousand reads to the SDK in one chunk", async () => {
    const event = Buffer.from(`data: ${"y".repeat(1_000_000)}\n\n`);
    const pieces = cut(event, Array.from({ length: 999 }, (_, i) => (i + 1) * 1_000));
    expect(pieces).toHaveLength(1_000);
    const out = await framed(pieces);
    expect(out).toHaveLength(1);
    expect(out[0]!.equals(event)).toBe(true);
  });

  it("finds an event's end split across reads, and one cut between a held piece of one byte and the next", async () => {
    expect(await framed([Buffer.from("data: a\r\n"), Buffer.from("\r\ndata: b")])).toEqual([Buffer.from("data: a\r\n\r\n"), Buffer.from("data: b")]);
    expect((await framed([Buffer.from("data: a\r"), Buffer.from("\n"), Buffer.from("\r"), Buffer.from("\ndata: b\n\n")])).map(String)).toEqual(["data: a\r\n\r\ndata: b\n\n"]);
    expect(eventEnds(Buffer.from("\n"), Buffer.from("\nrest\n\nmore"))).toEqual({ first: 1, last: 7 });
    // an end wholly inside what came before was looked for with the reads before
    expect(eventEnds(Buffer.from("\n\n"), Buffer.from("rest"))).toBeNull();
  });

  it("hands on a last event without an end when the stream ends", async () => {
    expect((await framed([Buffer.from("data: a\n\ndata: b")])).map(String)).toEqual(["data: a\n\n", "data: b"]);
  });

  it("ends the body with OversizeEvent once one event goes past the limit, and lets one at the limit through", async () => {
    await expect(framed([Buffer.from("data: "), Buffer.alloc(1_000, 0x61)], 1_000)).rejects.toBeInstanceOf(OversizeEvent);
    const atLimit = Buffer.concat([Buffer.from("data: "), Buffer.alloc(992, 0x61), Buffer.from("\n\n")]);
    expect(atLimit.length).toBe(1_000);
    expect(await framed(cut(atLimit, [100, 500, 998]), 1_000)).toEqual([atLimit]);
  });

  it("allows an event as long as the largest answer with every character escaped", () => {
    expect(MAX_EVENT_BYTES).toBeGreaterThan(6 * MAX_ANSWER_CHARS);
  });
});
