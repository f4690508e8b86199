import { describe, expect, it } from "vitest";
import { ChangeQueues } from "./change-queues";

const tick = () => new Promise((r) => setImmediate(r));

describe("ChangeQueues", () => {
  it("runs the changes of one key in order, even when an earlier one fails, and other keys alongside", async () => {
    const q = new ChangeQueues();
    const seen: string[] = [];
    const slow = q.serial("a", async () => {
      await tick();
      seen.push("a1");
      throw new Error("a1 failed");
    });
    const next = q.serial("a", async () => void seen.push("a2"));
    const other = q.serial("b", async () => void seen.push("b1"));
    await expect(slow).rejects.toThrow("a1 failed");
    await Promise.all([next, other]);
    expect(seen).toEqual(["b1", "a1", "a2"]);
  });

  it("counts every change until it settles, and settled() waits for the last, including ones added meanwhile", async () => {
    const q = new ChangeQueues();
    expect(q.busy).toBe(0);
    await q.settled();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    void q.serial("a", () => gate);
    void q.track(gate.then(() => "line"));
    expect(q.busy).toBe(2);
    let done = false;
    const settled = q.settled().then(() => (done = true));
    await tick();
    expect(done).toBe(false);
    void q.serial("a", async () => undefined); // queued behind the first: settled() waits for it too
    expect(q.busy).toBe(3);
    release();
    await settled;
    expect(q.busy).toBe(0);
  });
});
