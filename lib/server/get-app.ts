import "server-only";
/**
 * How route handlers and instrumentation.ts reach the server's core (lib/server/core.ts): the app
 * and every server function that holds the store or the engine. In production it is the bundle
 * scripts/serve.mjs loaded and installed before Next, the one copy in the process; this module
 * imports none of its code (only its types), so Next's route bundles carry none of it. Under
 * `next dev` there is no such bundle and the core is imported as a module of the route's bundle.
 */
import type { AstrionApp } from "./app";
import type { ServerCore } from "./core";
import { keptProcessSingleton } from "./singleton";

export type { AstrionApp };

/** The server's core: the installed bundle, or (under `next dev`) the module itself. */
export async function serverCore(): Promise<ServerCore> {
  const installed = keptProcessSingleton<ServerCore>("core");
  if (installed) return installed;
  // A constant once built, so a production build holds no import of the core at all.
  if (process.env.NODE_ENV !== "production") return (await import("./core")).core;
  throw new Error("The server's core is not loaded: serve the build with `npm start` (scripts/serve.mjs loads .next/astrion-core/core.mjs before Next).");
}

/** The started app; the first call starts it (taking the data folder's lock). */
export async function getApp(): Promise<AstrionApp> {
  return (await serverCore()).getApp();
}
