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
import type { ToolProviders } from "./team/tool-kit";
import { Residency, type ResidencyCounts } from "./residency";
import { TeamRun } from "./team-run";
import { scheduleDistill } from "./team/memory-distill";
import { TeamState } from "./team/state";
import { mapLimit } from "@/lib/store/map-limit";

/** Conversations resumed at once at boot (see {@link Engine.resumeAll}). */
const RESUMES_AT_ONCE = 8;

/** What the engine is built from. */
export interface EngineParts {
  deps: EngineDeps;
  limits: RuntimeLimits;
  /** Where the leader's and the sub-agents' tools come from (lib/runtime/tool-providers), in the order they are offered. */
  tools: ToolProviders;
}

export class Engine {
  readonly #deps: EngineDeps;
  readonly #limits: RuntimeLimits;
  readonly #tools: ToolProviders;
  readonly #runs = new Map<string, TeamRun>();
  readonly #residency: Residency;

  constructor(parts: EngineParts) {
    this.#deps = parts.deps;
    this.#limits = parts.limits;
    this.#tools = parts.tools;
    this.#residency = new Residency({
      working: (id) => this.#runs.get(id)?.working ?? false,
      idle: async (id) => this.#runs.get(id)?.idle(),
      viewers: (id) => this.#deps.bus.subscriberCount(conversationTopic(id)),
      hasNotices: (id) => this.#runs.get(id)?.hasNotices ?? false,
      retain: (id) => this.#deps.bus.retain(conversationTopic(id)),
      release: (id) => this.#unload(id, false),
    });
    // A storage whose writes can be refused (leases) says when one is: the run stops here at once.
    parts.deps.conversations.watchFailures?.((id, error) => void this.#halt(id, error));
  }

  /**
   * This instance may no longer write a conversation (another instance took its lease over, its
   * commits are lost): its run is halted (no further model call, tool run or event: TeamRun.halt),
   * dropped, its MCP servers stopped, and the conversation let go; a later request opens it again
   * (and is refused while another instance holds it). Logged, never thrown.
   */
  async #halt(convId: string, error: Error): Promise<void> {
    const run = this.#runs.get(convId);
    console.error(`[astrion] ${convId}: this instance stops running the conversation: ${error.message}`);
    if (run) {
      run.halt(error);
      this.#runs.delete(convId);
    }
    try {
      await this.#deps.mcp.stopConversation(convId);
      await this.#residency.forget(convId, () => this.#deps.conversations.close(convId));
    } catch (again) {
      console.error(`[astrion] ${convId}: could not let the conversation go:`, (again as Error).message);
    }
  }

  /**
   * Runs `fn` with the conversation's run, held in memory meanwhile; afterwards the conversation is
   * let go unless a loop works or a viewer follows it (an SSE stream opened inside `fn` is one).
   * Every request that uses a run goes through here, and is answered only once what it changed and
   * what it read is durable (the engine's changes resolve before they are: TeamRun.durable).
   * `resuming`: `fn` resumes the run itself (so a run taken from a dead instance is not resumed
   * twice: see {@link runFor}).
   */
  withRun<T>(convId: string, fn: (run: TeamRun) => Promise<T>, resuming = false): Promise<T> {
    return this.#residency.use(convId, async () => {
      const run = await this.#runFor(convId, resuming);
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
   * {@link withRun} nothing holds it: it may be let go as soon as it is idle and unviewed. A
   * conversation this opens by taking it from an instance that died mid-run (the storage's
   * `takeOrphan`) has its run resumed first, as a restart would.
   */
  runFor(convId: string): Promise<TeamRun> {
    return this.#runFor(convId, false);
  }

  /** `resuming`: the caller resumes the run itself (a restart, a takeover, an unarchive). */
  async #runFor(convId: string, resuming: boolean): Promise<TeamRun> {
    // The engine holds the conversation open while it runs it (the storage loads what it needs).
    await this.#deps.conversations.open(convId);
    // Taken from an instance that died mid-run (any request may be the first to open it, a
    // viewer's included): its run continues here as a restart's does.
    const orphan = this.#deps.conversations.takeOrphan?.(convId) ?? false;
    let run = this.#runs.get(convId);
    if (!run) {
      run = new TeamRun(this.#deps, convId, this.#limits, this.#tools);
      this.#runs.set(convId, run);
    }
    if (orphan && !resuming) await run.resume();
    return run;
  }

  /**
   * Lets go of a conversation: its run object (listeners; tokens too when `revoke`), what the
   * storage holds open for it (the file store: its files checkpointed, its log files closed).
   */
  async #unload(convId: string, revoke: boolean): Promise<void> {
    const run = this.#runs.get(convId);
    if (run) {
      if (revoke) run.dispose();
      else run.release();
      this.#runs.delete(convId);
    }
    await this.#deps.conversations.close(convId);
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
    await this.#deps.conversations.closeAll().catch((error: unknown) => console.error("[astrion] could not close the open conversations:", (error as Error).message));
  }

  /**
   * A conversation that was archived is active again: its agents get their tokens back (narrowed
   * to what their roles allow now) and unfinished work continues, as at boot. Tokens are issued
   * here and at boot, never on a tool call.
   */
  async resumeRun(convId: string): Promise<void> {
    await this.withRun(convId, (run) => run.resume(), true);
    await this.#residency.released(convId);
  }

  /**
   * At boot: every active conversation continues from disk, several at once (each waits on its
   * files or its rows more than it computes; one at a time, a start with hundreds would keep the
   * last waiting for all the others).
   */
  async resumeAll(): Promise<number> {
    let resumed = 0;
    for (let offset = 0; ; offset += 100) {
      const page = await this.#deps.conversations.listActive({ offset, limit: 100 });
      await mapLimit(page.ids, RESUMES_AT_ONCE, async (id) => {
        try {
          await this.withRun(id, (run) => run.resume(), true);
          resumed++;
          // Only conversations with work in progress (or something to tell the person) stay in
          // memory; the others are let go now and open when used.
          await this.#residency.released(id);
        } catch (error) {
          console.error(`[astrion] could not resume ${id}:`, (error as Error).message);
        }
      });
      if (offset + page.ids.length >= page.total) break;
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
