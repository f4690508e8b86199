import "server-only";
/**
 * The team runtime's public face: one {@link TeamRun} per conversation, kept on globalThis (Next
 * loads server code in several bundles of one process), started on demand, resumed at boot, and
 * let go when nothing holds it (./residency.ts: no request using it, no loop working, no viewer).
 */
import path from "node:path";
import { conversationTopic, getBus } from "@/lib/bus";
import { closeJsonLines } from "@/lib/store/jsonl";
import { mcpManager } from "@/lib/mcp";
import { getApp } from "@/lib/server/app";
import { limitsFromEnv } from "./config";
import { Residency, type ResidencyCounts } from "./residency";
import { TeamRun } from "./team-run";
import { scheduleDistill } from "./team/memory-distill";
import { TeamState } from "./team/state";

export { TeamRun, LEADER_DISPLAY_NAME, CONTEXT_FILE_NAME } from "./team-run";
export { limitsFromEnv, type RuntimeLimits } from "./config";
export * from "@/lib/contracts/events";

const RUNS_KEY = Symbol.for("astrion.runtime.runs");

function runs(): Map<string, TeamRun> {
  const g = globalThis as unknown as Record<symbol, Map<string, TeamRun> | undefined>;
  return (g[RUNS_KEY] ??= new Map());
}

const RESIDENCY_KEY = Symbol.for("astrion.runtime.residency");

function residency(): Residency {
  const g = globalThis as unknown as Record<symbol, Residency | undefined>;
  return (g[RESIDENCY_KEY] ??= new Residency({
    working: (id) => runs().get(id)?.working ?? false,
    idle: async (id) => runs().get(id)?.idle(),
    viewers: (id) => getBus().subscriberCount(conversationTopic(id)),
    hasNotices: (id) => runs().get(id)?.hasNotices ?? false,
    retain: (id) => getBus().retain(conversationTopic(id)),
    release: (id) => unload(id, false),
  }));
}

/**
 * Runs `fn` with the conversation's run, held in memory meanwhile; afterwards the conversation is
 * let go unless a loop works or a viewer follows it (an SSE stream opened inside `fn` is one).
 * Every request that uses a run goes through here, and is answered only once what it changed and
 * what it read is durable (the engine's changes resolve before they are: TeamRun.durable).
 */
export function withRun<T>(convId: string, fn: (run: TeamRun) => Promise<T>): Promise<T> {
  return residency().use(convId, async () => {
    const run = await runFor(convId);
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
export function withConversation<T>(convId: string, fn: () => Promise<T>): Promise<T> {
  return residency().use(convId, fn);
}

/** Lets a conversation go if nothing holds it any more (an SSE viewer left). */
export function releaseIfIdle(convId: string): void {
  residency().settle(convId);
}

/** Whether a conversation's agents or leader are working now (a model call, a tool, a queued step). */
export function isRunWorking(convId: string): boolean {
  return runs().get(convId)?.working ?? false;
}

/** What the runtime holds in memory now (`GET /api/health`). */
export function runtimeResidency(): ResidencyCounts & { runs: number } {
  return { runs: runs().size, ...residency().counts() };
}

/**
 * The run of a conversation (which must exist: the store is asked first). Outside {@link withRun}
 * nothing holds it: it may be let go as soon as it is idle and unviewed.
 */
export async function runFor(convId: string): Promise<TeamRun> {
  const app = await getApp();
  await app.store.get(convId);
  // The engine holds the conversation in memory while it runs it (lib/store/live-conversation.ts).
  await app.store.open(convId, (report) => {
    if (report.replayed || report.repairedBytes) {
      console.log(`[astrion] ${convId}: replayed ${report.replayed} step(s) of its log${report.repairedBytes ? `, cut ${report.repairedBytes} torn byte(s)` : ""}`);
    }
  });
  let run = runs().get(convId);
  if (!run) {
    run = new TeamRun(app, convId, limitsFromEnv());
    runs().set(convId, run);
  }
  return run;
}

/**
 * Lets go of a conversation: its run object (listeners; tokens too when `revoke`), its files in
 * memory (checkpointed: seed files complete and durable, step log empty) and its open log files.
 */
async function unload(convId: string, revoke: boolean): Promise<void> {
  const run = runs().get(convId);
  if (run) {
    if (revoke) run.dispose();
    else run.release();
    runs().delete(convId);
  }
  const app = await getApp();
  await app.store.closeConversation(convId);
  await closeJsonLines(path.join(app.root, "conversations", convId));
}

/** Stops a conversation's work (if any) and forgets its run, e.g. before the conversation is deleted. */
export async function forgetRun(convId: string): Promise<void> {
  await residency().forget(convId, async () => {
    await runs().get(convId)?.stop().catch(() => undefined);
    // A run already let go may still have servers running (until their idle stop): archived or deleted, they stop now.
    await mcpManager().stopConversation(convId);
    await unload(convId, true);
  });
}

/** Checkpoints every open conversation and lets it go (nothing is stopped or revoked): for a clean shutdown. */
export async function closeAll(): Promise<void> {
  await mcpManager().stopAll().catch((error: unknown) => console.error("[astrion] could not stop the MCP servers:", (error as Error).message));
  for (const convId of [...runs().keys()]) {
    await unload(convId, false).catch((error: unknown) => console.error(`[astrion] could not close ${convId}:`, (error as Error).message));
  }
  const app = await getApp();
  // A conversation let go just before (an idle release) may still be checkpointing: wait for it.
  await app.store.closeAll().catch((error: unknown) => console.error("[astrion] could not close the open conversations:", (error as Error).message));
  await app.store.flushIndex().catch((error: unknown) => console.error("[astrion] could not write conversations/index.json:", (error as Error).message));
  await app.search.close().catch((error: unknown) => console.error("[astrion] could not write the search index:", (error as Error).message));
}

/**
 * A conversation that was archived is active again: its agents get their tokens back (narrowed to
 * what their roles allow now) and unfinished work continues, as at boot. Tokens are issued here
 * and at boot, never on a tool call.
 */
export async function resumeRun(convId: string): Promise<void> {
  await withRun(convId, (run) => run.resume());
  await residency().released(convId);
}

/** At boot: every active conversation continues from disk. */
export async function resumeAll(): Promise<number> {
  const app = await getApp();
  let resumed = 0;
  for (let offset = 0; ; offset += 100) {
    const page = await app.store.list({ status: "active", offset, limit: 100 });
    for (const item of page.items) {
      try {
        await withRun(item.id, (run) => run.resume());
        resumed++;
        // Only conversations with work in progress (or something to tell the person) stay in
        // memory; the others are let go now and open when used.
        await residency().released(item.id);
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
export function distillArchived(convId: string): void {
  void withConversation(convId, async () => {
    const app = await getApp();
    await scheduleDistill(new TeamState(app, convId, limitsFromEnv()), "archive");
  }).catch((error: unknown) => console.error(`[astrion] ${convId}: could not distil the archived conversation:`, (error as Error).message));
}
