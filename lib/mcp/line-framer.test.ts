import { deserializeMessage, ReadBuffer } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { describe, expect, it } from "vitest";
import { rng } from "@/test/helpers/rng";
import { FramedReadBuffer, frameStdioTransport, LineFramer, MAX_MCP_MESSAGE_BYTES, OversizeMessageError } from "./line-framer";

/** `data` cut at the given offsets. */
function cut(data: Buffer, at: number[]): Buffer[] {
  const bounds = [0, ...at.filter((n) => n > 0 && n < data.length).sort((a, b) => a - b), data.length];
  return bounds.slice(1).map((end, i) => data.subarray(bounds[i]!, end)).filter((b) => b.length > 0);
}

/** `data` cut at `count` random places. */
function randomCut(data: Buffer, next: () => number, count: number): Buffer[] {
  return cut(data, Array.from({ length: count }, () => Math.floor(next() * data.length)));
}

function frame(pieces: Buffer[], max?: number): { framer: LineFramer; lines: string[]; maxHeld: number } {
  const framer = new LineFramer(max);
  const lines: string[] = [];
  let maxHeld = 0;
  for (const piece of pieces) {
    for (const line of framer.push(piece)) lines.push(line.toString("utf8"));
    maxHeld = Math.max(maxHeld, framer.held);
  }
  return { framer, lines, maxHeld };
}

const message = (id: number, text: string) => JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });

describe("LineFramer", () => {
  it("gives every line, in order and whole, whatever the reads, looking at each byte once", () => {
    const lines = [message(1, "short"), "", message(2, "x".repeat(300_000)), `${message(3, "crlf")}\r`, message(4, "多字节 UTF-8 ✓ 😀".repeat(2_000)), message(5, "\\n escaped, not a line end")];
    const stream = Buffer.from(lines.map((l) => `${l}\n`).join(""));
    for (let seed = 1; seed <= 40; seed++) {
      const next = rng(seed);
      const out = frame(randomCut(stream, next, 1 + Math.floor(next() * 300)));
      expect(out.lines, `seed ${seed}`).toEqual(lines);
      expect(out.framer.scanned, `seed ${seed}`).toBe(stream.length);
      expect(out.framer.held).toBe(0);
    }
  });

  it("holds an unfinished line until it ends, and nothing after the last line end", () => {
    const { framer, lines } = frame([Buffer.from('{"a":1}\n{"b":'), Buffer.from("2")]);
    expect(lines).toEqual(['{"a":1}']);
    expect(framer.held).toBe(6);
    expect(framer.push(Buffer.from("}\n")).map(String)).toEqual(['{"b":2}']);
    expect(framer.held).toBe(0);
  });

  it("scans a line that arrives in a thousand reads once, where the SDK's reader scans it again on every read", () => {
    const line = Buffer.from(`${message(1, "y".repeat(1_000_000))}\n`);
    const pieces = cut(line, Array.from({ length: 999 }, (_, i) => (i + 1) * 1_000));
    expect(pieces).toHaveLength(1_000);
    const { framer, lines } = frame(pieces);
    expect(lines).toHaveLength(1);
    expect(framer.scanned).toBe(line.length);
    // What the SDK's ReadBuffer holds and scans for the same reads: about 1,000 x 0.5 MB.
    const sdk = new ReadBuffer();
    let sdkScanned = 0;
    for (const piece of pieces) {
      sdk.append(piece);
      sdkScanned += (sdk as unknown as { _buffer: Buffer })._buffer.length;
      sdk.readMessage();
    }
    expect(sdkScanned).toBeGreaterThan(400 * line.length);
  });

  it("refuses a line one byte over the limit as soon as it passes it, however it is split, keeping the lines before it", () => {
    const max = 50_000;
    const fits = "f".repeat(max);
    const over = "o".repeat(max + 1);
    const stream = Buffer.from(`${message(1, "before")}\n${fits}\n${over}\n${message(2, "after")}\n`);
    for (let seed = 1; seed <= 40; seed++) {
      const next = rng(seed);
      const out = frame(randomCut(stream, next, 1 + Math.floor(next() * 100)), max);
      expect(out.lines, `seed ${seed}`).toEqual([message(1, "before"), fits]);
      expect(out.framer.oversize).toBeInstanceOf(OversizeMessageError);
      expect(out.framer.oversize!.message).toMatch(/longer than 50000 bytes/);
      // Never more than the limit held, never more than one byte past it looked at.
      expect(out.maxHeld).toBeLessThanOrEqual(max);
      expect(out.framer.scanned).toBeLessThanOrEqual(message(1, "before").length + 1 + max + 1 + max + 1);
      expect(out.framer.held).toBe(0);
    }
  });

  it("reads nothing after an oversize line, however much more comes", () => {
    const framer = new LineFramer(1_000);
    expect(framer.push(Buffer.alloc(5_000, 0x78))).toEqual([]);
    const scanned = framer.scanned;
    expect(scanned).toBe(1_001);
    for (let i = 0; i < 100; i++) expect(framer.push(Buffer.from(`${message(i, "late")}\n`))).toEqual([]);
    expect(framer.scanned).toBe(scanned);
    expect(framer.held).toBe(0);
  });

  it("defaults to the SDK's own limit, so no message the SDK took is refused", () => {
    expect(MAX_MCP_MESSAGE_BYTES).toBe(10 * 1024 * 1024);
    const line = Buffer.alloc(MAX_MCP_MESSAGE_BYTES + 1, 0x78);
    line[MAX_MCP_MESSAGE_BYTES] = 0x0a;
    const framer = new LineFramer();
    const out = cut(line, Array.from({ length: 159 }, (_, i) => (i + 1) * 65_536)).flatMap((p) => framer.push(p));
    expect(out.map((l) => l.length)).toEqual([MAX_MCP_MESSAGE_BYTES]);
    expect(framer.oversize).toBeNull();
  });
});

describe("FramedReadBuffer (the SDK transport's reader)", () => {
  it("gives the SDK's messages, skips blank lines, then reports an oversize line once", () => {
    const reader = new FramedReadBuffer(deserializeMessage, 10_000);
    reader.append(Buffer.from(`${message(1, "one")}\n\n\r\n${message(2, "two")}\n${"z".repeat(20_000)}`));
    expect(reader.readMessage()).toMatchObject({ id: 1, result: { content: [{ text: "one" }] } });
    expect(reader.readMessage()).toMatchObject({ id: 2 });
    expect(() => reader.readMessage()).toThrow(OversizeMessageError);
    expect(reader.readMessage()).toBeNull();
    reader.append(Buffer.from(`${message(3, "late")}\n`));
    expect(reader.readMessage()).toBeNull();
  });

  it("reports a line that is not JSON-RPC as the SDK does, and goes on", () => {
    const reader = new FramedReadBuffer(deserializeMessage);
    reader.append(Buffer.from(`not json\n${message(7, "ok")}\n`));
    expect(() => reader.readMessage()).toThrow(SyntaxError);
    expect(reader.readMessage()).toMatchObject({ id: 7 });
    expect(reader.readMessage()).toBeNull();
  });

  it("replaces the reader of an object that has one, and refuses one that has none", () => {
    const transport = { _readBuffer: new ReadBuffer() };
    const framed = frameStdioTransport(transport, deserializeMessage);
    expect(transport._readBuffer).toBe(framed);
    expect(() => frameStdioTransport({}, deserializeMessage)).toThrow(/no reader to replace/);
  });
});
