/**
 * Route table (see ./spec.ts): conversations — the index, one conversation, the leader's
 * messages, export and import, the timeline, a call's context, the shared context and the live
 * event stream. A conversation's sub-agents are in ./routes-agents.ts.
 */
import { ContextLineSchema } from "@/lib/context/report";
import { RuntimeEventSchema } from "@/lib/contracts/events";
import {
  ContextMessageIdSchema,
  ConversationListSchema,
  ConversationResponseSchema,
  CreateConversationBodySchema,
  CreatedConversationResponseSchema,
  DeletedResponseSchema,
  ListConversationsQuerySchema,
  PatchConversationBodySchema,
  PostMessageBodySchema,
  PostMessageResponseSchema,
  RetryBodySchema,
  RetryResponseSchema,
  StopResponseSchema,
  TimelineQuerySchema,
  TimelineResponseSchema,
} from "@/lib/contracts/http";
import { ConversationIdSchema, LeaderMessagesFileSchema } from "@/lib/contracts/on-disk";
import { PresenceBeatBodySchema, PresenceBeatResponseSchema, PresenceCountsSchema } from "@/lib/contracts/presence";
import { BulkExportBodySchema, ExportQuerySchema, ImportQuerySchema, ImportResultSchema } from "@/lib/export/schema";
import { DecisionBodySchema, DecisionResponseSchema, SharedContextResponseSchema, WriteBodySchema } from "@/lib/shared-context/schema";
import { InterventionActionBodySchema, InterventionsResponseSchema } from "@/lib/contracts/interventions";
import type { RouteSpec } from "./spec";

const conversation = { id: ConversationIdSchema };

/** The header that names a download's file: `attachment; filename="…"`. */
function named(filename: string) {
  return { "Content-Disposition": `\`attachment; filename="${filename}"\`` };
}

export const CONVERSATION_ROUTES: readonly RouteSpec[] = [
  {
    path: "/api/conversations",
    methods: {
      GET: {
        summary: "The conversation index: newest first, paged, `q` over titles, `status` filter.",
        description: "the index, newest first, paged; `q` matches the title or the project folder, case-insensitively",
        query: ListConversationsQuerySchema,
        answers: [{ status: 200, json: ConversationListSchema }],
      },
      POST: {
        summary: "Starts a new conversation; answers its metadata.",
        description: "new conversation → 201 `{conversation}`; with a non-empty `goal` it is the person's first message and the team starts on it → 201 `{conversation, started: {message_id, trace_id}}`; 429 `rate_limited` past the entry rate limit (`ASTRION_RATE_LIMIT_PER_MINUTE`)",
        body: { json: CreateConversationBodySchema },
        answers: [{ status: 201, json: CreatedConversationResponseSchema }],
        errors: [409, 429],
      },
    },
  },
  {
    path: "/api/conversations/{id}",
    params: conversation,
    methods: {
      GET: {
        summary: "One conversation's metadata.",
        description: "`{conversation}` (metadata.json)",
        answers: [{ status: 200, json: ConversationResponseSchema }],
        errors: [404],
      },
      PATCH: {
        summary: "Renames, archives or unarchives, or changes the model.",
        description:
          "rename, archive (stops its work), unarchive; `allowed_roles` is the conversation's role whitelist (`null`: every registered role); `model_key` a registered model key (400 naming the known keys otherwise): the leader's next call and agents created from then on use it",
        body: { json: PatchConversationBodySchema },
        answers: [{ status: 200, json: ConversationResponseSchema }],
        errors: [404],
      },
      DELETE: {
        summary: "Deletes the conversation's folder and its index entry.",
        description: "delete the conversation's folder and index entry",
        answers: [{ status: 200, json: DeletedResponseSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/conversations/{id}/messages",
    params: conversation,
    methods: {
      GET: {
        summary: "The Team Leader's conversation (`messages.json`) as stored.",
        description: "the Team Leader's `messages.json`",
        answers: [{ status: 200, json: LeaderMessagesFileSchema }],
        errors: [404],
      },
      POST: {
        summary: "A person's message to the Team Leader: 202, the team works in the background.",
        description:
          "a person's message to the Team Leader → 202 `{message_id, trace_id}`; the team works in the background; while a run is going it is an intervention handled by `strategy` (`steer` default, `queue`, `interrupt`, `new_task`), answered with `intervention` (its strategy, its `queue_id` when queued, `cancelled_call` for an interrupt); 409 (`details.reason`) when the project folder is refused (see Localhost safety); 429 `rate_limited` past the entry rate limit",
        body: { json: PostMessageBodySchema },
        answers: [{ status: 202, json: PostMessageResponseSchema }],
        errors: [404, 409, 429],
      },
    },
  },
  {
    path: "/api/conversations/{id}/export",
    params: conversation,
    methods: {
      GET: {
        summary: "One conversation as a Markdown report (`format=md`, default) or a zip of its folder (`format=zip`).",
        description:
          "download (`Content-Disposition: attachment; filename=\"<id>-<title-slug>.md|zip\"`): the Markdown report (default) or a zip of the conversation's folder; see [Export and import](export-import.md)",
        query: ExportQuerySchema,
        answers: [
          {
            status: 200,
            media: { "text/markdown": "the report (`format=md`)", "application/zip": "the conversation's folder (`format=zip`)" },
            description: "The download.",
            headers: named("<id>-<title-slug>.md|zip"),
          },
        ],
        errors: [404],
      },
    },
  },
  {
    path: "/api/conversations/export",
    methods: {
      POST: {
        summary: "Several conversations as one zip (`{ids: [...]}`, at most 50).",
        description: "one zip of 1–50 conversations (each id once; 404 names the first that does not exist); one conversation's zip is named like its own export",
        body: { json: BulkExportBodySchema },
        answers: [{ status: 200, media: { "application/zip": "the conversations' folders and a manifest" }, description: "The download.", headers: named("astrion-conversations-<time>.zip") }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/conversations/import",
    methods: {
      POST: {
        summary: "Imports an export zip, sent as the raw body; `mode` says what to do with an id that is taken.",
        description:
          "body: an export zip, raw, `content-type: application/zip` → 201 `{imported: [{source_id, id, title, outcome: created|copied|replaced}]}`; a taken id with no mode → 409 `details: {taken, running, modes}`; `overwrite` without `confirm=true` → 400; overwriting a conversation that is working → 409; a refused zip → 400 (413 past a size limit) naming the entry and what is wrong",
        query: ImportQuerySchema,
        body: { raw: "application/zip", description: "An export zip (of `GET …/export?format=zip` or `POST /api/conversations/export`), as the raw body." },
        answers: [{ status: 201, json: ImportResultSchema }],
        errors: [409],
      },
    },
  },
  {
    path: "/api/conversations/{id}/retry",
    params: conversation,
    methods: {
      POST: {
        summary: "Retries the work that failed: the Team Leader's model call, or one idle sub-agent's task.",
        description:
          "`{agent_id: null}` (default): the leader calls its model again for the message it failed on; `{agent_id: n}`: that idle agent takes its task up again. Nothing is re-sent → 202 `{retried}`; 409 `conflict` when there is nothing to retry (working, answered, finished or terminated)",
        body: { json: RetryBodySchema },
        answers: [{ status: 202, json: RetryResponseSchema }],
        errors: [404, 409],
      },
    },
  },
  {
    path: "/api/conversations/{id}/stop",
    params: conversation,
    methods: {
      POST: {
        summary: "Stops the whole conversation: model streams are aborted and no agent is left running.",
        description: "stops everything: streams aborted, no agent left running",
        answers: [{ status: 200, json: StopResponseSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/conversations/{id}/interventions",
    params: conversation,
    methods: {
      GET: {
        summary: "The messages people queued until the current work is over, and whether a run is going.",
        description: "the queue of messages sent with `strategy: queue`, in the order they will be handled, and `running`",
        answers: [{ status: 200, json: InterventionsResponseSchema }],
        errors: [404],
      },
      POST: {
        summary: "A person's intervention: withdraw a queued message or an agent's task, or reorder the queue.",
        description:
          "`withdraw_queued` (404 when no longer queued), `withdraw_task` (the agent is told and stops, its work kept; 409 when it has no task), `reorder` (`order`: every queued id once; 409 when the queue changed) → 200 the queue afterwards; each is a `control` envelope on the timeline with its author",
        body: { json: InterventionActionBodySchema },
        answers: [{ status: 200, json: InterventionsResponseSchema }],
        errors: [400, 404, 409],
      },
    },
  },
  {
    path: "/api/conversations/{id}/timeline",
    params: conversation,
    methods: {
      GET: {
        summary: "The audit timeline (timeline.jsonl), optionally only one trace or one person's actions.",
        description: "the audit timeline, optionally one trace (`trace_id`) or what one person did (`person`: the envelopes whose `author.id` it is)",
        query: TimelineQuerySchema,
        answers: [{ status: 200, json: TimelineResponseSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/conversations/{id}/context/{messageId}",
    params: { ...conversation, messageId: ContextMessageIdSchema },
    methods: {
      GET: {
        summary: "What one model call saw: its three context slices, in full (the message keeps only totals).",
        description: "what the model call that produced an assistant message saw: each slice, its lines or messages, tokens and budget",
        answers: [{ status: 200, json: ContextLineSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/conversations/{id}/shared-context",
    params: conversation,
    methods: {
      GET: {
        summary: "The conversation's shared context: entries, writes waiting for a person, recent resolutions.",
        description: "the shared context: entries, conflicts waiting for a person, recent resolutions",
        answers: [{ status: 200, json: SharedContextResponseSchema }],
        errors: [404],
      },
      PUT: {
        summary: "A person writes a key; arbitrated like any write, with a person ranking like the leader.",
        description: "a person writes (`append` or `overwrite`; a stale overwrite is arbitrated)",
        body: { json: WriteBodySchema },
        answers: [{ status: 200, json: DecisionResponseSchema }],
        errors: [404, 409],
      },
    },
  },
  {
    path: "/api/conversations/{id}/shared-context/decisions",
    params: conversation,
    methods: {
      POST: {
        summary: "A person decides a write that waits for them: keep the current value or take the proposed one.",
        description: "a person decides a conflict: `keep_current` or `take_proposed` (404 for an unknown conflict, 409 for one already decided)",
        body: { json: DecisionBodySchema },
        answers: [{ status: 200, json: DecisionResponseSchema }],
        errors: [404, 409],
      },
    },
  },
  {
    path: "/api/conversations/{id}/events",
    params: conversation,
    methods: {
      GET: {
        summary: "The conversation's live updates as server-sent events: a snapshot (or the events missed), then every change.",
        description:
          "server-sent events: a `snapshot` first, then changes (`delta` live text, `command_output` a running command's output (live only, like `delta`), `message`, `agent`, `phase`, `question`, `usage`, `timeline`, `notice` — `{level, code, key, params, message}`: the UI renders the i18n message `key` with `params` in its language, `message` is the English text for logs and other clients…); the events of one turn of the event loop leave in one chunk; ids `<boot>-<epoch>-<seq>`, `Last-Event-ID` (or `?lastEventId=`) resumes without gaps or duplicates while the conversation is held (a viewer follows it or its run works), else (an id from before a release, a restart, or one the buffer no longer holds) a fresh `snapshot`; `delta` live text goes to the viewers connected at the time (once their snapshot is sent) and is never replayed (it carries the id of the event it follows; the saved `message` holds the whole text); `: ping` heartbeats; `event: presence` frames without an id (never replayed): `hello` (this stream's viewer id), `people` (who has the conversation open, on every change), `heartbeat` every ~10 s, to be acknowledged with `POST …/presence` (see [People → Presence](people.md#presence)). At most `ASTRION_SSE_MAX_PER_CLIENT` open per client address and `ASTRION_SSE_MAX_TOTAL` in all: beyond, 429 `rate_limited` (JSON, `details.scope` `client` or `total`, `Retry-After`); a closed stream frees its slot. Streams opened on an unchanged conversation share one snapshot, built once",
        answers: [{ status: 200, event: RuntimeEventSchema, description: "The stream: `id:` and `data:` lines, each `data` one RuntimeEvent as JSON." }],
        errors: [404, 429],
      },
    },
  },
  {
    path: "/api/conversations/{id}/presence",
    params: conversation,
    methods: {
      POST: {
        summary: "A page acknowledges its stream's presence heartbeat and says which drawer it has open and to whom it types.",
        description:
          "keeps the stream's viewer present for another 25 s (`viewer` from the stream's `hello`), with `drawer` (a sub-agent number or null) and `typing` (`leader`, a sub-agent number or null; it lasts 5 s); `known: false` when the viewer is not registered (its stream closed, it expired, or it is another person's): reopen the stream. Stores nothing; a viewer may send it",
        body: { json: PresenceBeatBodySchema },
        answers: [{ status: 200, json: PresenceBeatResponseSchema }],
      },
    },
  },
  {
    path: "/api/presence",
    methods: {
      GET: {
        summary: "How many people have each conversation open now.",
        description: "`counts`: conversation id → people with it open (several tabs of one person count once); conversations nobody has open are left out",
        answers: [{ status: 200, json: PresenceCountsSchema }],
      },
    },
  },
];
