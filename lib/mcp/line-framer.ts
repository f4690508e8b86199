/**
 * The lines of a stdio MCP server's output (one JSON-RPC message per line), each byte looked at
 * once, and a line longer than a limit refused as soon as it passes it.
 *
 * The SDK's own reader (`ReadBuffer` in `@modelcontextprotocol/sdk` shared/stdio.js, 1.x) copies
 * all it holds of an unfinished line together with each new read into a new Buffer and scans all
 * of it again for `\n`: a line that arrives in k reads of 64 KiB costs O(k × its size). A hostile
 * server's single line of 12 MB (refused only at the SDK's 10 MiB) kept the event loop busy for
 * about 520 ms of copying and scanning in pieces of a few milliseconds, and `/api/health` round
 * trips took up to 230 ms meanwhile. Here the pieces of an unfinished line are kept as they came
 * and joined once, when the line ends. No I/O.
 */

/**
 * Bytes one message of a stdio MCP server may have: the SDK's own limit (10 MiB,
 * `STDIO_DEFAULT_MAX_BUFFER_SIZE`), kept so that no server that worked before is refused. With
 * each byte scanned once, parsing a message of this size holds the event loop about 13 ms.
 */
export const MAX_MCP_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A line went past the limit: the server is no longer read. */
export class OversizeMessageError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`the server sent a message longer than ${limit} bytes (the most one MCP message may have); its connection was ended`);
    this.name = new.target.name;
    this.limit = limit;
  }
}

const LF = 0x0a;

/** Splits a byte stream into lines (without their `\n`); see the module comment. */
export class LineFramer {
  readonly #max: number;
  #parts: Buffer[] = [];
  #held = 0;
  #scanned = 0;
  #oversize: OversizeMessageError | null = null;

  constructor(maxLineBytes: number = MAX_MCP_MESSAGE_BYTES) {
    this.#max = maxLineBytes;
  }

  /** Bytes of the unfinished line held now (never more than the limit). */
  get held(): number {
    return this.#held;
  }

  /** Bytes looked at for a line's end since the start: each byte pushed once at most. */
  get scanned(): number {
    return this.#scanned;
  }

  /** The line that went past the limit, or null: nothing is read after it. */
  get oversize(): OversizeMessageError | null {
    return this.#oversize;
  }

  /**
   * The lines `chunk` ends, in order (a `\r` before the `\n` is kept; JSON ignores it). A line
   * longer than the limit ends the framing: the lines before it are returned, {@link oversize}
   * is set, and every later chunk is dropped unread.
   */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    while (!this.#oversize) {
      // Only up to one byte past the room left: a longer line is refused without reading the rest.
      const room = this.#max - this.#held;
      const end = Math.min(chunk.length, start + room + 1);
      const nl = chunk.subarray(start, end).indexOf(LF);
      this.#scanned += nl < 0 ? end - start : nl + 1;
      if (nl < 0 && end - start <= room) {
        if (end > start) {
          this.#parts.push(chunk.subarray(start, end));
          this.#held += end - start;
        }
        break;
      }
      if (nl < 0 || nl > room) {
        this.#oversize = new OversizeMessageError(this.#max);
        this.clear();
        break;
      }
      const tail = chunk.subarray(start, start + nl);
      lines.push(this.#held ? Buffer.concat([...this.#parts, tail], this.#held + nl) : tail);
      this.#parts = [];
      this.#held = 0;
      start += nl + 1;
    }
    return lines;
  }

  /** Drops what is held (the connection ended). */
  clear(): void {
    this.#parts = [];
    this.#held = 0;
  }
}

/** What the SDK's `StdioClientTransport` asks of its reader (its `_readBuffer`): a read in, messages out, clear at close. */
interface ReadBufferLike {
  append(chunk: Buffer): void;
  readMessage(): unknown;
  clear(): void;
}

function isReadBufferLike(value: unknown): value is ReadBufferLike {
  const v = value as Partial<Record<keyof ReadBufferLike, unknown>> | null;
  return typeof v === "object" && v !== null && typeof v.append === "function" && typeof v.readMessage === "function" && typeof v.clear === "function";
}

/**
 * The SDK transport's reader, on a {@link LineFramer}: `append` frames a read (never throwing,
 * so the SDK reads every message before an oversize line), `readMessage` gives the next message
 * (`deserialize` is the SDK's own: JSON.parse and its JSON-RPC schema), and after the last one
 * before an oversize line it throws the {@link OversizeMessageError} once, which the SDK hands to
 * the transport's `onerror`; the connection then closes the transport.
 */
export class FramedReadBuffer implements ReadBufferLike {
  readonly framer: LineFramer;
  readonly #deserialize: (line: string) => unknown;
  #lines: Buffer[] = [];
  #next = 0;
  #reported = false;

  constructor(deserialize: (line: string) => unknown, maxLineBytes: number = MAX_MCP_MESSAGE_BYTES) {
    this.#deserialize = deserialize;
    this.framer = new LineFramer(maxLineBytes);
  }

  append(chunk: Buffer): void {
    for (const line of this.framer.push(chunk)) this.#lines.push(line);
  }

  readMessage(): unknown {
    while (this.#next < this.#lines.length) {
      const line = this.#lines[this.#next++]!;
      // A blank line carries nothing (the SDK would report it as broken JSON).
      if (line.length === 0 || (line.length === 1 && line[0] === 0x0d)) continue;
      return this.#deserialize(line.toString("utf8"));
    }
    this.#lines = [];
    this.#next = 0;
    const oversize = this.framer.oversize;
    if (oversize && !this.#reported) {
      this.#reported = true;
      throw oversize;
    }
    return null;
  }

  clear(): void {
    this.#lines = [];
    this.#next = 0;
    this.framer.clear();
  }
}

/**
 * Puts a {@link FramedReadBuffer} in place of the reader of the SDK's `StdioClientTransport`
 * (a private field, checked here: an SDK that no longer has it fails the server's start with this
 * error rather than reading unbounded lines again). Call it before the transport starts.
 */
export function frameStdioTransport(transport: object, deserialize: (line: string) => unknown, maxLineBytes?: number): FramedReadBuffer {
  const t = transport as { _readBuffer?: unknown };
  if (!isReadBufferLike(t._readBuffer)) throw new Error("the MCP SDK's stdio transport has no reader to replace (lib/mcp/line-framer.ts must follow the SDK)");
  const framed = new FramedReadBuffer(deserialize, maxLineBytes);
  t._readBuffer = framed;
  return framed;
}
