/**
 * What the Redis bus tests share: a test redis-server for the file (started before its tests,
 * stopped after them), buses on it that are closed after each test, and small event helpers.
 */
import { randomInt } from "node:crypto";
import { afterAll, afterEach, beforeAll } from "vitest";
import { conversationTopic, type ConversationMessage, type ConversationTopic, type NumberedEvent, type ReplayResult } from "@/lib/bus";
import { createRedisBus, type RedisBus } from "@/lib/bus-redis";
import type { RuntimeEvent } from "@/lib/contracts/events";
import { startRedis, type TestRedis } from "./redis-server";

/** The file's Redis and its buses. */
export interface RedisBusKit {
  /** The running test Redis (after beforeAll). */
  redis(): TestRedis;
  /** A bus on it, connected; closed after the test. */
  makeBus(replayWindow?: number, holdTtlMs?: number): Promise<RedisBus>;
  /** What the buses logged in this test (Redis away, back, events lost). */
  logged: string[];
}

/** Registers the hooks of a file of Redis bus tests; call at the top of the file. */
export function redisBusKit(): RedisBusKit {
  let redis: TestRedis | undefined;
  const buses: RedisBus[] = [];
  const logged: string[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
    logged.length = 0;
  });
  afterAll(async () => {
    await redis?.dispose();
  });
  return {
    redis: () => redis!,
    async makeBus(replayWindow = 100, holdTtlMs?: number) {
      const bus = createRedisBus({ url: redis!.url, replayWindow, holdTtlMs, log: (message) => void logged.push(message) });
      buses.push(bus);
      await bus.whenConnected();
      return bus;
    },
    logged,
  };
}

/** A numbered event told apart by `n`. */
export function busy(n: number): RuntimeEvent {
  return { type: "usage", token_statistics: { n } };
}

/** A live-only event. */
export function delta(text: string): RuntimeEvent {
  return { type: "delta", agent_id: null, kind: "content", text };
}

/** `n` of a {@link busy} event. */
export function nOf(message: { event: unknown }): unknown {
  const event = message.event as RuntimeEvent;
  return event.type === "usage" ? event.token_statistics.n : undefined;
}

/** A conversation topic no other test uses. */
export function freshTopic(): ConversationTopic {
  return conversationTopic(`conv_20260101_000000_${randomInt(100_000, 999_999)}`);
}

/** What a listener got. */
export function recorder(): { got: ConversationMessage[]; listener: (m: ConversationMessage) => void } {
  const got: ConversationMessage[] = [];
  return { got, listener: (m) => void got.push(m) };
}

/** The numbered ones of `messages`. */
export const numbered = (messages: ConversationMessage[]): NumberedEvent[] => messages.filter((m): m is NumberedEvent => m.seq !== null);

/** The `n`s a replay gives, or "gap". */
export function replayed(result: ReplayResult): unknown[] | "gap" {
  return "gap" in result ? "gap" : result.events.map(nOf);
}

/** The numbering an id names (ids are `<numbering>-<position>-<tag>`). */
export const numberingOf = (id: string): string => id.split("-")[0]!;

/** Reads an SSE byte stream as text as it comes. */
export function readSse(stream: ReadableStream<Uint8Array>): { text: () => string; done: () => boolean; cancel: () => void } {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let done = false;
  void (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    done = true;
  })();
  return { text: () => text, done: () => done, cancel: () => void reader.cancel().catch(() => undefined) };
}
