import "server-only";
/**
 * Boot: takes the data folder's lock, clears temp files left by a crash, seeds roles and the
 * model registry. When another live server owns the folder, this server says so and exits
 * instead of serving two writers on one folder. Imported once, by instrumentation.ts.
 */
import { resumeAll } from "@/lib/runtime";
import { getApp } from "./app";
import { installBodyGuard } from "./body-guard";
import { startEventLoopMonitor } from "./event-loop";

// First, so the resume below is measured and the first request is already guarded.
startEventLoopMonitor();
installBodyGuard();

try {
  await getApp();
  const resumed = await resumeAll();
  if (resumed > 0) console.log(`[astrion] resumed ${resumed} conversation(s) from disk`);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`[astrion] cannot start: ${message}`);
  process.exit(1);
}
