import { describe, expect, it } from "vitest";
import { Residency, type ResidencyHooks } from "./residency";

/** A conversation as the hooks see it, and a log of what the policy did. */
class World implements ResidencyHooks {
  readonly loops = new Map<string, { done: Promise<void>; finish: () => void }>();
  readonly viewerCount = new Map<string, number>();
  readonly notices = new Set<string>();
  readonly holds = new Map<string, number>();
  readonly log: string[] = [];
  releaseGate: Promise<void> | null = null;

  startLoop(id: string): void {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    this.loops.set(id, { done, finish });
  }
  endLoop(id: string): void {
    const loop = this.loops.get(id);
    this.loops.delete(id);
    loop?.finish();
  }
  working(id: string): boolean {
    return this.loops.has(id);
  }
  idle(id: string): Promise<void> {
    return this.loops.get(id)?.done ?? Promise.resolve();
  }
  viewers(id: string): number {
    return this.viewerCount.get(id) ?? 0;
  }
  hasNotices(id: string): boolean {
    return this.notices.has(id);
  }
  retain(id: string): () => void {
    this.holds.set(id, (this.holds.get(id) ?? 0) + 1);
    return () => this.holds.set(id, this.holds.get(id)! - 1);
  }
  async release(id: string): Promise<void> {
    this.log.push(`release ${id} start`);
    await this.releaseGate;
    this.log.push(`release ${id} end`);
  }
}

const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("Residency", () => {
  it("releases a conversation when the request using it ends and nothing else holds it", async () => {
    const world = new World();
    const residency = new Residency(world);
    const inside = await residency.use("c1", async () => {
      world.log.push("using");
      return world.holds.get("c1");
    });
    expect(inside).toBe(1); // its bus topic was retained while the request ran
    await settled();
    expect(world.log).toEqual(["using", "release c1 start", "release c1 end"]);
    expect(world.holds.get("c1")).toBe(0);
    expect(residency.counts()).toEqual({ in_use: 0, working: 0, kept_for_notices: 0, releasing: 0 });
  });

  it("keeps a working run (and its replay buffer) until it goes idle, then releases it", async () => {
    const world = new World();
    const residency = new Residency(world);
    await residency.use("c1", async () => world.startLoop("c1"));
    await settled();
    expect(world.log).toEqual([]);
    expect(world.holds.get("c1")).toBe(1);
    expect(residency.counts()).toMatchObject({ working: 1 });
    world.endLoop("c1");
    await settled();
    expect(world.log).toEqual(["release c1 start", "release c1 end"]);
    expect(world.holds.get("c1")).toBe(0);
  });

  it("keeps a conversation while a viewer follows it, and releases it when the viewer leaves", async () => {
    const world = new World();
    const residency = new Residency(world);
    await residency.use("c1", async () => world.viewerCount.set("c1", 1));
    await settled();
    expect(world.log).toEqual([]);
    // Idle and viewed: the viewer's subscription holds the topic; the runtime's hold is let go.
    expect(world.holds.get("c1")).toBe(0);
    world.viewerCount.set("c1", 0);
    residency.settle("c1");
    await settled();
    expect(world.log).toEqual(["release c1 start", "release c1 end"]);
  });

  it("does not release while another request still uses the conversation", async () => {
    const world = new World();
    const residency = new Residency(world);
    let finishSecond!: () => void;
    const second = residency.use("c1", () => new Promise<void>((resolve) => (finishSecond = resolve)));
    await settled();
    await residency.use("c1", async () => undefined);
    await settled();
    expect(world.log).toEqual([]);
    finishSecond();
    await second;
    await settled();
    expect(world.log).toEqual(["release c1 start", "release c1 end"]);
  });

  it("a request arriving during a release waits for it, so the next load reads what it wrote", async () => {
    const world = new World();
    const residency = new Residency(world);
    let openGate!: () => void;
    world.releaseGate = new Promise<void>((resolve) => (openGate = resolve));
    await residency.use("c1", async () => undefined);
    expect(world.log).toEqual(["release c1 start"]);
    const next = residency.use("c1", async () => world.log.push("next request"));
    await settled();
    expect(world.log).toEqual(["release c1 start"]);
    openGate();
    await next;
    expect(world.log.slice(0, 3)).toEqual(["release c1 start", "release c1 end", "next request"]);
  });

  it("a request takes its hold at once: a viewer leaving in the same tick cannot start a release under it", async () => {
    const world = new World();
    const residency = new Residency(world);
    world.viewerCount.set("c1", 1);
    await residency.use("c1", async () => undefined);
    world.viewerCount.set("c1", 0);
    const using = residency.use("c1", async () => {
      world.log.push("using");
    });
    residency.settle("c1"); // the viewer's stream ended
    await using;
    await settled();
    expect(world.log).toEqual(["using", "release c1 start", "release c1 end"]);
  });

  it("keeps idle runs that hold notices, at most maxKept, releasing the oldest first", async () => {
    const world = new World();
    const residency = new Residency(world, { maxKept: 2 });
    for (const id of ["a", "b", "c"]) world.notices.add(id);
    for (const id of ["a", "b"]) await residency.use(id, async () => undefined);
    await settled();
    expect(world.log).toEqual([]);
    expect(residency.counts().kept_for_notices).toBe(2);
    // Using "a" again makes it the most recent; "b" is now the oldest.
    await residency.use("a", async () => undefined);
    await residency.use("c", async () => undefined);
    await settled();
    expect(world.log).toEqual(["release b start", "release b end"]);
    expect(residency.counts().kept_for_notices).toBe(2);
  });

  it("forget runs a delete as the conversation's release: requests wait for it, nothing stays tracked", async () => {
    const world = new World();
    const residency = new Residency(world);
    world.notices.add("c1");
    await residency.use("c1", async () => undefined);
    expect(residency.counts().kept_for_notices).toBe(1);
    let finish!: () => void;
    const forgetting = residency.forget("c1", () => new Promise<void>((resolve) => (finish = resolve)));
    await settled();
    const next = residency.use("c1", async () => world.log.push("after delete"));
    await settled();
    expect(world.log).toEqual([]);
    world.notices.delete("c1"); // the run and its notices are gone with the delete
    finish();
    await forgetting;
    await next;
    expect(world.log[0]).toBe("after delete");
    await settled();
    expect(residency.counts()).toEqual({ in_use: 0, working: 0, kept_for_notices: 0, releasing: 0 });
  });

  it("a failed release is logged and forgotten, and the conversation can be used again", async () => {
    const world = new World();
    world.release = async () => {
      throw new Error("disk full");
    };
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const residency = new Residency(world);
      await residency.use("c1", async () => undefined);
      await settled();
      expect(errors).toHaveLength(1);
      expect(residency.counts().releasing).toBe(0);
      await expect(residency.use("c1", async () => "again")).resolves.toBe("again");
    } finally {
      console.error = original;
    }
  });
});
