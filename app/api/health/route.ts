import { json, route } from "@/lib/http";
import { getApp } from "@/lib/server/app";
import { eventLoopReport } from "@/lib/server/event-loop";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Liveness and where the data lives; lists files the store could not use. */
export const GET = route(async () => {
  const app = await getApp();
  return json({
    status: "ok",
    version: app.version,
    data_root: app.root,
    pid: process.pid,
    started_at: app.startedAt,
    problems: app.store.problems(),
    event_loop: eventLoopReport(),
  });
});
