/**
 * Route table (see ./spec.ts): the server itself (health, this document, signing in and out),
 * the models and the gateway, history search, the knowledge index and long-term memory.
 */
import {
  HealthAnswerSchema,
  ModelListSchema,
  OpenApiDocumentSchema,
  SearchQuerySchema,
  SearchResultSchema,
  SignInBodySchema,
  SignInResponseSchema,
  SignOutResponseSchema,
  DeletedResponseSchema,
} from "@/lib/contracts/http";
import { GatewayReportSchema } from "@/lib/gateway/schema";
import { KnowledgeReportSchema, RebuildAnswerSchema, RebuildBodySchema } from "@/lib/knowledge/schema";
import {
  CreateMemoryAnswerSchema,
  CreateMemoryBodySchema,
  MemoryEntryAnswerSchema,
  MemoryIdSchema,
  MemoryListAnswerSchema,
  MemoryListQuerySchema,
  PatchMemoryBodySchema,
  RedactionSettingsBodySchema,
} from "@/lib/memory/schema";
import type { RouteSpec } from "./spec";

export const SYSTEM_ROUTES: readonly RouteSpec[] = [
  {
    path: "/api/health",
    methods: {
      GET: {
        summary: "Liveness, where the data lives, files the server could not use, and what it holds in memory.",
        description:
          "status, version, data folder, pid, `backend` (`{kind: \"folder\"}`, or `{kind: \"postgresql+redis\", postgresql, redis}` with whether each answered a probe just now: `{ok, ms?, error?}`, the error a code, never an address or a credential), problems: every file the server met that it could not use (index, state, a conversation's metadata/messages or agent files once read — at open, resume or listing — `models.json`, `mcp.json`, and `gateway.json` with each of its sources that does not load), and rebuilds of `index.json`; `index` (the in-memory conversation index: `conversations`, `unreadable`, `loaded_at`, `load_ms`, `rebuilds` `[{at, reason: missing|corrupt|out_of_step|changed_on_disk, message, moved_to?}]`, `writes` and `write_ms_total` of `index.json` rewrites since boot, `unchanged` metadata changes that needed none, `last_write` `{at, bytes, ms}`); `event_loop` (the largest event-loop delay of each of the last 60 seconds: `{resolution_ms, window_s, monitoring_since, max_ms, max_ms_per_second: [{at, max_ms, cpu_ms, gc_ms, gc_max_ms}]}`, with the CPU time the process used and its GC pauses in each second); `search` (the history search index: `state` `starting`|`ready`|`rebuilding`|`failed`, `messages`, `conversations`, `queued`, `flushes`, `flush_ms_total`, `rebuilds` `[{at, reason: missing|corrupt|outdated, message, conversations, messages, ms}]` — also listed among `problems` —, `reconciled`: conversations found behind their files since start, `error`); `resident`, what is held in memory for conversations (see [Memory held by the server](architecture.md#memory-held-by-the-server)): `{conversations_open, runs, runs_in_use, runs_working, runs_kept_for_notices, runs_releasing, bus_topics, bus_buffered_events, bus_agent_topics, sse_streams, snapshot_frames, log_files_open}`, all back to 0 when no conversation is viewed, used or running. In token mode, without the token: only `{status: \"ok\"}`",
        answers: [{ status: 200, json: HealthAnswerSchema }],
        public: true,
      },
    },
  },
  {
    path: "/api/openapi.json",
    methods: {
      GET: {
        summary: "This document: the HTTP API as OpenAPI 3.1, generated from the route table and the zod contract.",
        description: "the same document as [openapi.json](openapi.json) (`npm run openapi` writes it); in token mode it needs the token like every other API request",
        answers: [{ status: 200, json: OpenApiDocumentSchema }],
      },
    },
  },
  {
    path: "/api/auth/signin",
    methods: {
      POST: {
        summary: "Signs in with the access token (the owner) or a person's name and password (team mode); wrong guesses are throttled per client address.",
        description:
          "`{token}`: checks the token, sets the access-token cookie; `{name, password}` (team mode, see [People](people.md)): checks the person's password, sets their session cookie → `{signed_in, required, next, person?}` where `next` is the same-origin path to go to (`/` for anything else); 401 for a wrong token or password, 429 + `Retry-After` while the client is locked out",
        body: { json: SignInBodySchema },
        answers: [{ status: 200, json: SignInResponseSchema }],
        errors: [401, 429],
        public: true,
      },
    },
  },
  {
    path: "/api/auth/signout",
    methods: {
      POST: {
        summary: "Forgets the access token in this browser and ends a person's session.",
        description: "expires the access-token cookie and deletes the person's session (team mode) → `{signed_out: true}`",
        answers: [{ status: 200, json: SignOutResponseSchema }],
        public: true,
      },
    },
  },
  {
    path: "/api/models",
    methods: {
      GET: {
        summary: "The registered models as the browser may see them (never keys), and the model aliases roles may use.",
        description:
          "registered models (never keys), each with its `provider` profile `{profile, source, detail}` (`source` `named` in models.json, or guessed from the `base_url` or the `server`'s `/v1/models`, asked once, or the `default` `generic`), the default key and the model aliases (`aliases`: the file's map over the defaults)",
        answers: [{ status: 200, json: ModelListSchema }],
      },
    },
  },
  {
    path: "/api/gateway",
    methods: {
      GET: {
        summary: "The protocol gateway's sources (gateway.json): their tools, warnings and errors; never a header value.",
        description:
          "the protocol gateway: `{present, error, sources: [{name, base_url, header_names, tools: [{name, operation, method, path, effect, description}], warnings, error, last_call_error}]}` — never a header value",
        answers: [{ status: 200, json: GatewayReportSchema }],
      },
    },
  },
  {
    path: "/api/search",
    methods: {
      GET: {
        summary: "Full-text search over every conversation's messages, with filters.",
        description:
          "full-text search over every conversation's messages, the leader's and the sub-agents'; parameters and answer under [History search](history-search.md); a bad parameter is a 400 `validation_failed`",
        query: SearchQuerySchema,
        answers: [{ status: 200, json: SearchResultSchema }],
      },
    },
  },
  {
    path: "/api/knowledge",
    methods: {
      GET: {
        summary: "The knowledge index of every project folder known from the conversations: state, files indexed of total, last update.",
        description:
          "the knowledge index of every project folder some conversation names (archived ones too): `{projects: [{project_path (real path), state: none|building|ready|error, files_indexed, files_total, passages, truncated_files, skipped: {gitignored, binary, over_file_limit, unreadable}, last_update, error, embedding}], limits: {max_file_bytes, max_files, wait_ms}}`; see [Knowledge retrieval](knowledge.md)",
        answers: [{ status: 200, json: KnowledgeReportSchema }],
      },
    },
  },
  {
    path: "/api/knowledge/rebuild",
    methods: {
      POST: {
        summary: "Rebuilds one project's knowledge index in the background (202 with its state).",
        description:
          "throws that project's stored index away and builds it again in the background → 202 `{project}` (its state, `building`); 404 when no conversation names that folder (only those are indexed), 400 for a body that is not exactly `{project_path}`",
        body: { json: RebuildBodySchema },
        answers: [{ status: 202, json: RebuildAnswerSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/memory/entries",
    methods: {
      GET: {
        summary: "Entries of long-term memory: `q` searches (ranked), `kind`, `level`, `project` filter, `offset`/`limit` page.",
        description:
          "long-term memory entries → `{entries, total, offset, limit, projects}`: ranked by relevance when `q` is given (BM25, plus vectors when an `embedding` model is set; Chinese works), else newest first; `kind` `fact`|`preference`|`open_issue`, `level` `public`|`project`|`restricted`, `project` a project folder or `none`; `limit` 1–200 (default 50). Every entry is listed (a person's view; agents' recall is access-filtered)",
        query: MemoryListQuerySchema,
        answers: [{ status: 200, json: MemoryListAnswerSchema }],
      },
      POST: {
        summary: "Adds an entry by hand (author \"person\"), redacted first; a duplicate or contradiction updates the older entry.",
        description:
          "add an entry by hand (`author: \"person\"`), redacted first → 201 `{entry, action: \"added\"}`, or 200 with `action` `duplicate`|`contradiction` when it updated an older entry; `project_path` absolute or null; a `project` entry needs a project folder, a `restricted` one a non-empty `grant` (role ids); `source.conversation_id` must name an existing conversation",
        body: { json: CreateMemoryBodySchema },
        answers: [
          { status: 201, json: CreateMemoryAnswerSchema, description: "Added (`action: \"added\"`)." },
          { status: 200, json: CreateMemoryAnswerSchema, description: "It updated an older entry (`action` `duplicate` or `contradiction`)." },
        ],
      },
    },
  },
  {
    path: "/api/memory/entries/{id}",
    params: { id: MemoryIdSchema },
    methods: {
      GET: {
        summary: "One entry.",
        description: "`{entry}` (404 when there is none)",
        answers: [{ status: 200, json: MemoryEntryAnswerSchema }],
        errors: [404],
      },
      PATCH: {
        summary: "Edits the statement, subject or kind (redacted first), or re-levels it (level, grant, project).",
        description: "edit (redacted again; the previous version goes to `history` with reason `edit`) or re-level (`relevel`) → `{entry}`",
        body: { json: PatchMemoryBodySchema },
        answers: [{ status: 200, json: MemoryEntryAnswerSchema }],
        errors: [404],
      },
      DELETE: {
        summary: "Deletes one entry.",
        description: "delete an entry → `{deleted}`",
        answers: [{ status: 200, json: DeletedResponseSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/memory/redaction",
    methods: {
      GET: {
        summary: "The internal account-id patterns the redaction pass masks (models.json `redaction.account_patterns`).",
        description: "`{account_patterns}` of models.json's `redaction`",
        answers: [{ status: 200, json: RedactionSettingsBodySchema }],
      },
      PUT: {
        summary: "Replaces them (each checked; a refused pattern is a 400 naming it); only that key of models.json changes.",
        description: "replace them (each checked; a refused pattern is a 400 naming it and the rule)",
        body: { json: RedactionSettingsBodySchema },
        answers: [{ status: 200, json: RedactionSettingsBodySchema }],
      },
    },
  },
];
