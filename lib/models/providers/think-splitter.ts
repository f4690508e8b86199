/**
 * Moves inline thinking out of streamed answer text: `<think>…</think>` anywhere (Ollama's older
 * builds, vLLM without `--reasoning-parser`, llama.cpp without `--reasoning-format`, LM Studio),
 * an unterminated `<think>` (the rest of the stream is thinking), and a `</think>` with no opening
 * tag (DeepSeek-R1 distills and Qwen3.5, whose chat template puts `<think>` in the prompt: what
 * came before it was thinking). A tag split across chunks is held back until it is whole. Pure.
 */

const OPEN = "<think>";
const CLOSE = "</think>";

/** Where the splitter sends what it decided. */
export interface ThinkSink {
  content(text: string): void;
  reasoning(text: string): void;
  /**
   * A `</think>` came with no `<think>` before it: everything sent as content so far was
   * thinking. Streamed pieces cannot be taken back; the assembled answer moves them.
   */
  closedWithoutOpening(): void;
}

/** Length of the longest end of `text` that is a proper beginning of `tag`. */
function partialTagAt(text: string, tag: string): number {
  for (let k = Math.min(tag.length - 1, text.length); k > 0; k--) if (text.endsWith(tag.slice(0, k))) return k;
  return 0;
}

/** Splits one answer's content pieces into content and thinking, in order. */
export class ThinkSplitter {
  #inside = false;
  #opened = false;
  #orphanSeen = false;
  /** Text not decided yet: a possible partial tag, or leading whitespace before a possible `<think>`. */
  #held = "";
  /** True until some content has been sent (leading whitespace before `<think>` is dropped). */
  #atStart = true;
  /** Drop whitespace that follows a tag (`<think>\n`, `</think>\n\n`). */
  #skipSpace = false;
  #ended = false;

  constructor(private readonly sink: ThinkSink) {}

  /** Takes the next piece of `content`. */
  push(text: string): void {
    let buf = this.#held + text;
    this.#held = "";
    while (buf) {
      if (this.#skipSpace) {
        const trimmed = buf.replace(/^\s+/, "");
        if (!trimmed) return;
        buf = trimmed;
        this.#skipSpace = false;
      }
      if (this.#inside) {
        const close = buf.indexOf(CLOSE);
        if (close >= 0) {
          this.#reasoning(buf.slice(0, close));
          buf = buf.slice(close + CLOSE.length);
          this.#inside = false;
          this.#skipSpace = true;
          continue;
        }
        const keep = partialTagAt(buf, CLOSE);
        this.#reasoning(buf.slice(0, buf.length - keep));
        this.#held = buf.slice(buf.length - keep);
        return;
      }
      if (this.#atStart && /^\s+$/.test(buf)) {
        this.#held = buf;
        return;
      }
      const open = buf.indexOf(OPEN);
      const close = this.#opened || this.#orphanSeen ? -1 : buf.indexOf(CLOSE);
      if (open >= 0 && (close < 0 || open < close)) {
        const before = buf.slice(0, open);
        if (!(this.#atStart && /^\s*$/.test(before))) this.#content(before);
        buf = buf.slice(open + OPEN.length);
        this.#inside = this.#opened = true;
        this.#skipSpace = true;
        continue;
      }
      if (close >= 0) {
        this.#content(buf.slice(0, close));
        this.#orphanSeen = true;
        this.sink.closedWithoutOpening();
        buf = buf.slice(close + CLOSE.length);
        this.#atStart = true;
        this.#skipSpace = true;
        continue;
      }
      const keep = Math.max(partialTagAt(buf, OPEN), this.#opened || this.#orphanSeen ? 0 : partialTagAt(buf, CLOSE));
      if (this.#atStart && /^\s*$/.test(buf.slice(0, buf.length - keep))) {
        this.#held = buf;
        return;
      }
      this.#content(buf.slice(0, buf.length - keep));
      this.#held = buf.slice(buf.length - keep);
      return;
    }
  }

  /** The stream ended: held text is sent (thinking when a `<think>` was never closed). Idempotent. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const rest = this.#held;
    this.#held = "";
    if (!rest) return;
    if (this.#inside) this.#reasoning(rest);
    else if (!(this.#atStart && /^\s*$/.test(rest))) this.#content(rest);
  }

  #content(text: string): void {
    if (!text) return;
    this.#atStart = false;
    this.sink.content(text);
  }

  #reasoning(text: string): void {
    if (text) this.sink.reasoning(text);
  }
}
