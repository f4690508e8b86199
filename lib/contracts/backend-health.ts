/**
 * `/api/health`'s `backend`: which backend the instance runs on (the data folder, or PostgreSQL +
 * Redis, lib/server/backend.ts) and, on PostgreSQL + Redis, whether each answered a probe just
 * now. Nothing in it names an address or a credential.
 */
import { z } from "zod";

/** Whether a server the instance depends on answered a probe just now: no address, no credentials. */
const ProbeSchema = z.object({
  ok: z.boolean(),
  /** How long the answer took, in ms. */
  ms: z.number().optional(),
  /** Why not: an error code (`ECONNREFUSED`, a PostgreSQL SQLSTATE) or the connection's state. */
  error: z.string().optional(),
});
export type Probe = z.infer<typeof ProbeSchema>;

/** Which backend the instance runs on, and on PostgreSQL + Redis whether both answer. */
export const BackendHealthSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("folder") }),
  z.object({ kind: z.literal("postgresql+redis"), postgresql: ProbeSchema, redis: ProbeSchema }),
]);
export type BackendHealth = z.infer<typeof BackendHealthSchema>;
