import { cookies } from "next/headers";
import { answer, route } from "@/lib/http";
import { getApp, serverCore } from "@/lib/server/get-app";
import { decodeIdentity, guardConfigFromEnv, hasValidToken, IDENTITY_HEADER, TOKEN_COOKIE } from "@/lib/security";
import { HealthAnswerSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Liveness and where the data lives (the data folder, or PostgreSQL + Redis and whether each
 * answers now); lists files the store could not use, reports the
 * conversation index (its load, rebuilds of index.json, its rewrites) and what is held in memory
 * for conversations. In token mode a caller without the token or a person's session (the identity
 * proxy.ts found) learns only that the server is up (no paths, no pid, no counts).
 */
export const GET = route(async (request) => {
  const authorized =
    hasValidToken({ authorization: request.headers.get("authorization"), tokenCookie: (await cookies()).get(TOKEN_COOKIE)?.value ?? null }, guardConfigFromEnv()) ||
    decodeIdentity(request.headers.get(IDENTITY_HEADER)) !== null;
  if (!authorized) return answer(HealthAnswerSchema, { status: "ok" });
  const { collectProblems, eventLoopReport, residentReport } = await serverCore();
  const app = await getApp();
  // Taken before the problems are gathered (they await files): a search report that says "ready"
  // after a rebuild is then never beside problems gathered before that rebuild was noted.
  const search = app.search.report();
  return answer(HealthAnswerSchema, {
    status: "ok",
    version: app.version,
    data_root: app.root,
    pid: process.pid,
    started_at: app.startedAt,
    backend: await app.backend.probe(),
    problems: await collectProblems(app),
    event_loop: eventLoopReport(),
    index: app.store.indexReport(),
    search,
    resident: residentReport(app),
  });
});

