import "server-only";
/**
 * The engine: one {@link TeamRun} per conversation, started on demand, resumed at boot, and let go
 * when nothing holds it (./residency.ts: no request using it, no loop working, no viewer). Built
 * once per process by the composition root (lib/server/app.ts) from what it is given; it reaches
 * for nothing else.
 */
import { conversationTopic } from "@/lib/bus";
import type { RuntimeLimits } from "./team/config";
import type { EngineDeps } from "./team/deps";
import { Residency, type ResidencyCounts } from "./residency";
import { TeamRun } from "./team-run";
import { scheduleDistill } from "./team/memory-distill";
import { TeamState } from "./team/state";

/** What the engine is built from. */
export interface EngineParts {
  deps: EngineDeps;
  limits: RuntimeLimits;
}

export class Engine {
  readonly #deps: EngineDeps;
  readonly #limits: RuntimeLimits;
  readonly #runs = new Map<string, TeamRun>();
  readonly #residency: Residency;

  constructor(parts: EngineParts) {
    this.#deps = parts.deps;
    this.#limits = parts.limits;
    this.#residency = new Residency({
      working: (id) => this.#runs.get(id)?.working ?? false,
      idle: async (id) => this.#runs.get(id)?.idle(),
      viewers: (id) => this.#deps.bus.subscriberCount(conversationTopic(id)),
      hasNotices: (id) => this.#runs.get(id)?.hasNotices ?? false,
      retain: (id) => this.#deps.bus.retain(conversationTopic(id)),
      release: (id) => this.#unload(id, false),
    });
  }

  /**
   * Runs `fn` with the conversation's run, held in memory meanwhile; afterwards the conversation is
   * let go unless a loop works or a viewer follows it (an SSE stream opened inside `fn` is one).
   * Every request that uses a run goes through here, and is answered only once what it changed and
   * what it read is durable (the engine's changes resolve before they are: TeamRun.durable).
   */
  withRun<T>(convId: string, fn: (run: TeamRun) => Promise<T>): Promise<T> {
    return this.#residency.use(convId, async () => {
      const run = await this.runFor(convId);
      const result = await fn(run);
      await run.durable();
      return result;
    });
  }

  /**
   * Runs `fn` with the conversation held but no run started: for requests that change its files
   * without its run (a rename, a person's shared-context write), so it is not let go under them;
   * afterwards it is let go if nothing else holds it.
   */
  withConversation<T>(convId: string, fn: () => Promise<T>): Promise<T> {
    return this.#residency.use(convId, fn);
  }

  /** Lets a conversation go if nothing holds it any more (an SSE viewer left). */
  releaseIfIdle(convId: string): void {
    this.#residency.settle(convId);
  }

  /** Whether a conversation's agents or leader are working now (a model call, a tool, a queued step). */
  isRunWorking(convId: string): boolean {
    return this.#runs.get(convId)?.working ?? false;
  }

  /** What the engine holds in memory now (`GET /api/health`). */
  residency(): ResidencyCounts & { runs: number } {
    return { runs: this.#runs.size, ...this.#residency.counts() };
  }

  /**
   * The run of a conversation (which must exist: the store is asked first). Outside
   * {@link withRun} nothing holds it: it may be let go as soon as it is idle and unviewed.
   */
  async runFor(convId: string): Promise<TeamRun> {
    const { store } = this.#deps;
    await store.get(convId);
    // The engine holds the conversation in memory while it runs it (lib/store/live-conversation.ts).
    await store.open(convId, (report) => {
      if (report.replayed || report.repairedBytes) {
        console.log(`[astrion] ${convId}: replayed ${report.replayed} step(s) of its log${report.repairedBytes ? `, cut ${report.repairedBytes} torn byte(s)` : ""}`);
      }
    });
    let run = this.#runs.get(convId);
    if (!run) {
      run = new TeamRun(this.#deps, convId, this.#limits);
      this.#runs.set(convId, run);
    }
    return run;
  }

  /**
   * Lets go of a conversation: its run object (listeners; tokens too when `revoke`), its files in
   * memory (checkpointed: seed files complete and durable, step log empty) and its open log files.
   */
  async #unload(convId: string, revoke: boolean): Promise<void> {
    const run = this.#runs.get(convId);
    if (run) {
      if (revoke) run.dispose();
      else run.release();
      this.#runs.delete(convId);
    }
    await this.#deps.store.closeConversation(convId);
    await this.#deps.store.closeLineFiles(convId);
  }

  /** Stops a conversation's work (if any) and forgets its run, e.g. before the conversation is deleted. */
  async forgetRun(convId: string): Promise<void> {
    await this.#residency.forget(convId, async () => {
      await this.#runs.get(convId)?.stop().catch(() => undefined);
      // A run already let go may still have servers running (until their idle stop): archived or deleted, they stop now.
      await this.#deps.mcp.stopConversation(convId);
      await this.#unload(convId, true);
    });
  }

  /**
   * Checkpoints every open conversation and lets it go (nothing is stopped or revoked), and stops
   * the MCP servers: for a clean shutdown.
   */
  async closeAll(): Promise<void> {
    await this.#deps.mcp.stopAll().catch((error: unknown) => console.error("[astrion] could not stop the MCP servers:", (error as Error).message));
    for (const convId of [...this.#runs.keys()]) {
      await this.#unload(convId, false).catch((error: unknown) => console.error(`[astrion] could not close ${convId}:`, (error as Error).message));
    }
    // A conversation let go just before (an idle release) may still be checkpointing: wait for it.
    await this.#deps.store.closeAll().catch((error: unknown) => console.error("[astrion] could not close the open conversations:", (error as Error).message));
  }

  /**
   * A conversation that was archived is active again: its agents get their tokens back (narrowed
   * to what their roles allow now) and unfinished work continues, as at boot. Tokens are issued
   * here and at boot, never on a tool call.
   */
  async resumeRun(convId: string): Promise<void> {
    await this.withRun(convId, (run) => run.resume());
    await this.#residency.released(convId);
  }

  /** At boot: every active conversation continues from disk. */
  async resumeAll(): Promise<number> {
    let resumed = 0;
    for (let offset = 0; ; offset += 100) {
      const page = await this.#deps.store.list({ status: "active", offset, limit: 100 });
      for (const item of page.items) {
        try {
          await this.withRun(item.id, (run) => run.resume());
          resumed++;
          // Only conversations with work in progress (or something to tell the person) stay in
          // memory; the others are let go now and open when used.
          await this.#residency.released(item.id);
        } catch (error) {
          console.error(`[astrion] could not resume ${item.id}:`, (error as Error).message);
        }
      }
      if (offset + page.items.length >= page.total) break;
    }
    return resumed;
  }

  /**
   * An archived conversation's conclusions are distilled into long-term memory, in the background
   * (the caller does not wait). The conversation is held meanwhile and let go afterwards.
   */
  distillArchived(convId: string): void {
    void this.withConversation(convId, async () => {
      await scheduleDistill(new TeamState(this.#deps, convId, this.#limits), "archive");
    }).catch((error: unknown) => console.error(`[astrion] ${convId}: could not distil the archived conversation:`, (error as Error).message));
  }
}
