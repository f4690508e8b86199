/**
 * What the workspace shares with the rest of the server: parts the composition root
 * (lib/server/app.ts) makes once per process and hands to ./workspace.ts, which gives them to
 * every tool (./tools.ts).
 */
import type { FileQueues } from "@/lib/store/atomic";
import type { ProtectedFolders } from "./protected";

/** The parts of one process the workspace tools use. */
export interface WorkspaceParts {
  /** Astrion's own folders, which no tool may see or touch (./protected.ts). */
  readonly protectedFolders: ProtectedFolders;
  /** The process's per-file write queues (lib/store/atomic.ts). */
  readonly queues: FileQueues;
}
