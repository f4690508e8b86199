import { describe, expect, it } from "vitest";
import type { Durability } from "@/lib/store";
import { Outbox } from "./outbox";

/** A storage whose changes become durable only when the test says so (a slow disk, under control). */
function slowStorage() {
  let made = 0;
  let durable = 0;
  let failed: Error | null = null;
  let waiters: Array<{ mark: number; resolve: () => void; reject: (e: Error) => void }> = [];
  const settle = () => {
    waiters = waiters.filter((w) => (w.mark <= durable ? (w.resolve(), false) : failed ? (w.reject(failed), false) : true));
  };
  const durability: Durability = {
    get durableMark() {
      return made;
    },
    isDurable: (mark) => durable >= mark,
    whenDurable: (mark = made) => (durable >= mark ? Promise.resolve() : failed ? Promise.reject(failed) : new Promise<void>((resolve, reject) => waiters.push({ mark, resolve, reject }))),
  };
  return {
    durability,
    change: () => void made++,
    commit: () => {
      durable = made;
      settle();
    },
    fail: (error: Error) => {
      failed = error;
      settle();
    },
  };
}

function outbox(durability: () => Durability | null) {
  const sent: string[] = [];
  return { box: new Outbox<string>(durability, (e) => void sent.push(e)), sent };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("the engine's outbox", () => {
  it("sends an event only once every change made before it is durable, and keeps the order", async () => {
    const slow = slowStorage();
    const { box, sent } = outbox(() => slow.durability);
    box.publish("a"); // nothing pending: at once
    expect(sent).toEqual(["a"]);
    slow.change();
    box.publish("b");
    slow.change();
    box.publish("c");
    await tick();
    expect(sent).toEqual(["a"]);
    let acknowledged = false;
    const ack = box.durable().then(() => (acknowledged = true));
    await tick();
    expect(acknowledged).toBe(false);
    slow.commit();
    await ack;
    expect(sent).toEqual(["a", "b", "c"]);
    // With events still waiting, a new one waits behind them even when its own changes are durable.
    slow.change();
    box.publish("d");
    slow.commit();
    box.publish("e");
    await box.durable();
    expect(sent).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("acknowledges what came before it, not what keeps coming after", async () => {
    const slow = slowStorage();
    const { box, sent } = outbox(() => slow.durability);
    slow.change();
    box.publish("before");
    const ack = box.durable();
    slow.commit();
    slow.change();
    box.publish("after"); // not durable yet
    await ack;
    expect(sent).toEqual(["before"]);
    slow.commit();
    await box.durable();
    expect(sent).toEqual(["before", "after"]);
  });

  it("counts a mark against the durability it was taken from when the conversation is loaded again", async () => {
    const first = slowStorage();
    const second = slowStorage();
    let current = first;
    const { box, sent } = outbox(() => current.durability);
    for (let i = 0; i < 5; i++) first.change();
    box.publish("old");
    // Let go and loaded again: the new storage counts from 0, the old one commits as it closes.
    current = second;
    first.commit();
    await box.durable();
    expect(sent).toEqual(["old"]);
    second.change();
    box.publish("new");
    second.commit();
    await box.durable();
    expect(sent).toEqual(["old", "new"]);
  });

  it("drops the waiting events when the storage fails, and refuses the acknowledgement", async () => {
    const slow = slowStorage();
    const { box, sent } = outbox(() => slow.durability);
    slow.change();
    box.publish("lost");
    const ack = box.durable();
    slow.fail(new Error("disk failed"));
    await expect(ack).rejects.toThrow(/disk failed/);
    await tick();
    expect(sent).toEqual([]);
  });

  it("sends at once for storage that is durable as it changes", async () => {
    const { box, sent } = outbox(() => null);
    box.publish("x");
    await box.durable();
    expect(sent).toEqual(["x"]);
  });
});
