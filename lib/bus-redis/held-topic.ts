/**
 * A conversation topic this process holds on the Redis bus: its subscribers and holds, its copy
 * (./topic-copy.ts), and where it stands in joining the topic in Redis. Pure: the bus hands it
 * the channel's messages and the join script's answers, and delivers what it returns.
 *
 * A join reads the stream (./scripts.ts, JOIN_SCRIPT) while the channel keeps announcing entries
 * on another connection, so the two must be put in order. The script marks the channel with the
 * join's token at the moment it reads: announcements before the mark are older than the read
 * (only those of the copy's own numbering are taken: the copy's own events given back), those
 * after it are newer (kept until the read's answer is in, then taken after it).
 */
import type { ConversationMessage } from "@/lib/bus";
import type { ChannelMessage, JoinRead } from "./scripts";
import { TopicCopy } from "./topic-copy";

type Phase = "idle" | "waiting" | "between";

/** One held conversation topic. */
export class HeldTopic {
  /** Subscribers in this process. */
  readonly listeners = new Set<(message: ConversationMessage) => void>();
  /** {@link Bus.retain} holds in this process. */
  holds = 0;
  readonly copy: TopicCopy;
  /** A join has completed: the copy follows a numbering Redis has. */
  joined = false;
  /**
   * An event published here did not reach Redis, and no join asking for a new numbering has been
   * sent since: events are not relayed meanwhile (the new numbering will make every other copy
   * resync), and the next join asks for one. Events published after that join was sent follow it
   * on the same connection, so they land in the new numbering and are relayed again.
   */
  lost = false;
  /** A join must be sent once Redis is reachable. */
  needsJoin = true;
  /** Renewals that found the current join still under way. */
  stalled = 0;
  #phase: Phase = "idle";
  #token: string | null = null;
  #renumbering = false;
  #read: JoinRead | null = null;
  #later: ChannelMessage[] = [];
  #waiters: Array<() => void> = [];

  constructor(
    readonly topic: string,
    numbering: string,
    window: number,
    /** This process's origin: its own live events come back on the channel and are dropped. */
    readonly origin: string,
  ) {
    this.copy = new TopicCopy(topic, numbering, window);
  }

  /** True when nothing holds the topic here any more. */
  get unheld(): boolean {
    return this.listeners.size === 0 && this.holds === 0;
  }

  /** True when `token` names the join under way. */
  isJoin(token: string): boolean {
    return this.#token === token;
  }

  /** True while a join is under way. */
  get joining(): boolean {
    return this.#phase !== "idle";
  }

  /** A join with `token` is under way (sent once the channel is subscribed). */
  beginJoin(token: string): void {
    this.stalled = 0;
    this.#phase = "waiting";
    this.#token = token;
    this.#renumbering = false;
    this.#read = null;
    this.#later = [];
    this.needsJoin = false;
  }

  /** The join is sent now; returns whether it asks for a new numbering (events were lost). */
  sendingJoin(): boolean {
    this.#renumbering = this.lost;
    this.lost = false;
    return this.#renumbering;
  }

  /**
   * The join could not finish (Redis went away): a new one is sent when it is back. `settle`:
   * let {@link synced} waiters go (not when that new join is sent at once).
   */
  abandonJoin(settle = true): void {
    if (this.#phase !== "idle" && this.#renumbering) this.lost = true;
    this.#phase = "idle";
    this.#token = null;
    this.#read = null;
    this.#later = [];
    this.needsJoin = true;
    if (settle) this.#settle();
  }

  /** A message of the topic's channel; returns what to deliver. */
  onMessage(message: ChannelMessage): ConversationMessage[] {
    if (message.k === "j") {
      if (message.o === this.origin && message.j === this.#token) {
        if (this.#phase !== "waiting") return [];
        if (this.#read) return this.#finish();
        this.#phase = "between";
      } else if (this.#phase === "idle" && this.joined) {
        this.copy.follow(message.n, message.s);
      }
      return [];
    }
    if (this.#phase === "between") {
      this.#later.push(message);
      return [];
    }
    if (message.k === "l") return message.o === this.origin ? [] : [this.copy.live(message.e)];
    if (this.#phase === "waiting" && message.n !== this.copy.numbering) return [];
    const delivered = this.copy.apply({ numbering: message.n, position: message.s, tag: message.t, event: message.e });
    return delivered ? [delivered] : [];
  }

  /** The join script's answer to the join `token`; returns what to deliver. */
  onJoinReply(token: string, read: JoinRead | "same"): ConversationMessage[] {
    if (token !== this.#token) return [];
    if (read === "same") {
      this.#phase = "idle";
      this.#token = null;
      this.#settle();
      return [];
    }
    this.#read = read;
    return this.#phase === "between" ? this.#finish() : [];
  }

  /** Resolves once no join is under way (at once when none is); see {@link settle}. */
  synced(): Promise<void> {
    if (!this.joining && !this.needsJoin) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Lets every {@link synced} waiter go (the topic is let go, or Redis is away). */
  settle(): void {
    this.#settle();
  }

  #finish(): ConversationMessage[] {
    const read = this.#read!;
    const later = this.#later;
    this.#phase = "idle";
    this.#token = null;
    this.#read = null;
    this.#later = [];
    this.joined = true;
    const out: ConversationMessage[] = [];
    if (read.numbering === this.copy.numbering) {
      // Entries the copy has not seen, its own among them: taken as the channel would give them.
      for (const entry of read.history) {
        const delivered = this.copy.apply(entry);
        if (delivered) out.push(delivered);
      }
      if (read.top > this.copy.position) this.copy.follow(read.numbering, read.top);
    } else {
      const base = read.history.length > 0 ? read.history[0]!.position - 1 : read.top;
      this.copy.reset(read.numbering, base, read.history.length > 0 ? read.boundaryId : null, read.history);
    }
    for (const message of later) out.push(...this.onMessage(message));
    this.#settle();
    return out;
  }

  #settle(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}
