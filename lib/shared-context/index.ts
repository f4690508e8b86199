/**
 * Public face of the shared context and its conflict arbitration (seed 003 §4.3). Server only:
 * browser code imports the pure schemas from `@/lib/shared-context/schema`.
 */
import "server-only";

export * from "./schema";
export * from "./arbitrate";
export * from "./events";
export * from "./store";
export * from "./clock";
export * from "./tools";
export * from "./timeline";
