/**
 * The HTTP contract of `GET /api/activity` (issue 32): who changed a role file, a setting or the
 * people, as timeline records whose envelope's `author` did it. Pure.
 */
import { z } from "zod";
import { PersonIdSchema } from "./people";
import { TimelineRecordSchema } from "./timeline-record";

/** `GET /api/activity` query: one person's changes only. */
export const ActivityQuerySchema = z.object({ person: PersonIdSchema.optional() });

/** `GET /api/activity` answer: who changed a role file, a setting or the people, oldest first. */
export const ActivityAnswerSchema = z.object({ records: z.array(TimelineRecordSchema) });
