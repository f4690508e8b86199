/**
 * The text of a messages.json (the leader's or a sub-agent's) as {@link toPythonJson} writes it,
 * byte for byte (as UTF-8), with each message's bytes kept between rewrites: an open
 * conversation's seed writer rewrites a whole messages.json after every burst of steps
 * (lib/store/seed-writer.ts), and nearly all of the file is messages that were written the time
 * before. Pure: no I/O (Node's Buffer).
 *
 * The cache is keyed by message object, so it must never outlive a change of one: a saved
 * message is never changed in place. The store takes a change only as a new file object from a
 * mutator and tells what it adds by identity (lib/store/step-records.ts `messagesDelta`): a
 * message changed in place would already never reach the step log, so such a change would be
 * lost at the next crash. The engine builds a new message for every change (the context window,
 * lib/context, likewise finds its histories by message identity and copies what it cuts).
 */
import { toPythonJson } from "./json";

/** Stands for the messages list in the file's own text; a data string equal to it makes the split check fail. */
const SENTINEL = "\u0000astrion-messages\u0000";
const SENTINEL_TEXT = JSON.stringify(SENTINEL);
/** A message's indent inside a messages file: the file's object, then its `messages` list. */
const ITEM_BREAK = "\n    ";
const OPEN = Buffer.from(`[${ITEM_BREAK}`, "utf8");
const BETWEEN = Buffer.from(`,${ITEM_BREAK}`, "utf8");
const CLOSE = Buffer.from("\n  ]", "utf8");

/**
 * Writes messages files as UTF-8 bytes, keeping each message's bytes (one writer per open
 * conversation): a rewrite serializes the file's few other fields and copies the messages'
 * bytes, instead of serializing and encoding every message again. Node only (Buffer).
 */
export class MessagesFileText {
  readonly #bytes = new WeakMap<object, Buffer>();

  /** `file`'s text as UTF-8, exactly {@link toPythonJson}'s. */
  bytes(file: { messages: readonly unknown[] }): Buffer {
    const messages: unknown = file.messages;
    if (!Array.isArray(messages)) return Buffer.from(toPythonJson(file), "utf8");
    const parts = toPythonJson({ ...file, messages: SENTINEL }).split(SENTINEL_TEXT);
    if (parts.length !== 2) return Buffer.from(toPythonJson(file), "utf8");
    if (messages.length === 0) return Buffer.from(`${parts[0]}[]${parts[1]}`, "utf8");
    const pieces: Buffer[] = [Buffer.from(parts[0] ?? "", "utf8")];
    for (let i = 0; i < messages.length; i++) pieces.push(i ? BETWEEN : OPEN, this.#item(messages[i]));
    pieces.push(CLOSE, Buffer.from(parts[1] ?? "", "utf8"));
    return Buffer.concat(pieces);
  }

  /**
   * One message at the list's indent. The indent is all that differs from the message written
   * alone: every line break in JSON text is the layout's (strings escape theirs), and a list's
   * items are written as top-level values are (no float key applies to them).
   */
  #item(message: unknown): Buffer {
    const cacheable = typeof message === "object" && message !== null;
    if (cacheable) {
      const known = this.#bytes.get(message);
      if (known !== undefined) return known;
    }
    const bytes = Buffer.from(toPythonJson(message).replaceAll("\n", ITEM_BREAK), "utf8");
    if (cacheable) this.#bytes.set(message, bytes);
    return bytes;
  }
}
