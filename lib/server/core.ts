import "server-only";
/**
 * The server's core: the composition root and every part of the server that holds the store or
 * the engine, as route handlers and instrumentation.ts reach it (through lib/server/get-app.ts).
 *
 * `npm run build` bundles it on its own (scripts/build-core.mjs → `.next/astrion-core/core.mjs`)
 * and scripts/serve.mjs loads that bundle once, before Next, and installs it: every module of the
 * store and the engine then exists once per process, whichever route or boot step uses it, and
 * Next's route bundles carry none of their code. Under `next dev` Next bundles this module like
 * any other (once per route bundle and once for instrumentation.ts, as the process singletons in
 * lib/server/singleton.ts and lib/store allow). What a route imports itself is pure: the HTTP
 * helpers, the contract schemas, the request rules and the translations.
 */
import { conversationTopic } from "@/lib/bus";
import { attachment, exportMarkdown, exportZip, importZip } from "@/lib/export";
import { gatewayReport } from "@/lib/gateway";
import { knowledgeReport, rebuildKnowledge } from "@/lib/knowledge/report";
import { deleteServer, listServers, putAllServers, putServer, testServer } from "@/lib/mcp";
import { readRedactionSettings, writeRedactionSettings } from "@/lib/memory/redaction-config";
import { loadRegistry, resolveModel } from "@/lib/models";
import { deleteModelEntry, listUpstreamModels, publicModelList, putModelEntry, readModelSettings, setDefaultModel } from "@/lib/model-settings";
import { doctorForKey } from "@/lib/models/doctor";
import { readTimeline, timelineFile } from "@/lib/protocol";
import { CONTEXT_FILE_NAME } from "@/lib/runtime";
import { createEventStream, SSE_HEADERS, STREAM_RETRY_AFTER_SECONDS } from "@/lib/sse";
import { parseJsonLines } from "@/lib/store/jsonl";
import { presenceOnStream } from "@/lib/presence";
import { closeApp, getApp } from "./app";
import { boot } from "./boot";
import { eventLoopReport } from "./event-loop";
import { collectProblems } from "./problems";
import { residentReport } from "./resident";
import { processSingleton } from "./singleton";

/** What route handlers and instrumentation.ts call of the server's core. */
export const core = {
  getApp,
  closeApp,
  boot,
  collectProblems,
  residentReport,
  eventLoopReport,
  conversationTopic,
  createEventStream,
  presenceOnStream,
  SSE_HEADERS,
  STREAM_RETRY_AFTER_SECONDS,
  attachment,
  exportMarkdown,
  exportZip,
  importZip,
  gatewayReport,
  knowledgeReport,
  rebuildKnowledge,
  deleteServer,
  listServers,
  putAllServers,
  putServer,
  testServer,
  readRedactionSettings,
  writeRedactionSettings,
  loadRegistry,
  resolveModel,
  readModelSettings,
  publicModelList,
  putModelEntry,
  deleteModelEntry,
  setDefaultModel,
  listUpstreamModels,
  doctorForKey,
  readTimeline,
  timelineFile,
  CONTEXT_FILE_NAME,
  parseJsonLines,
};

/** The server's core, as {@link core} holds it. */
export type ServerCore = typeof core;

/** Makes this copy of the core the process's (scripts/serve.mjs, before Next loads any route). */
export function installCore(): void {
  processSingleton("core", () => core);
}
