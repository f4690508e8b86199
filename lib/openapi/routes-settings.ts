/**
 * Route table (see ./spec.ts): the settings a person edits — the role library (by id, and role
 * files by their exact name), the MCP servers of mcp.json, the models of models.json and a model's connection doctor.
 */
import { DeletedResponseSchema, DoctorReportSchema, ModelKeySchema } from "@/lib/contracts/http";
import {
  CreateModelEntryBodySchema,
  DeleteModelEntryBodySchema,
  DiscoveryReportSchema,
  ModelSettingsSchema,
  SetDefaultModelBodySchema,
  UpdateModelEntryBodySchema,
  UpstreamModelsBodySchema,
  UpstreamModelsSchema,
} from "@/lib/model-settings/schema";
import {
  McpServerAnswerSchema,
  McpServerListSchema,
  McpServerNameSchema,
  McpTestResultSchema,
  PostMcpServerBodySchema,
  PutMcpServerBodySchema,
  PutMcpServersBodySchema,
} from "@/lib/mcp/schema";
import {
  CreateRoleBodySchema,
  ImportRoleBodySchema,
  RawRoleBodySchema,
  RenameRoleFileBodySchema,
  RoleAnyResponseSchema,
  RoleFileQuerySchema,
  RoleIdSchema,
  RoleListResponseSchema,
  RoleResponseSchema,
  UpdateRoleBodySchema,
} from "@/lib/roles/schema";
import type { RouteSpec } from "./spec";

export const SETTINGS_ROUTES: readonly RouteSpec[] = [
  {
    path: "/api/roles",
    methods: {
      GET: {
        summary: "Every role file, with broken ones as error entries.",
        description:
          "`{roles}`: cards, broken files as `kind: \"error\"` entries; a role with no `capabilities` has `derived_capabilities` (the tags routing derived from its name and description); a role with `provides:` has `provides` (`[{name, description}]`); a file whose name is no valid id carries `suggested_id`",
        answers: [{ status: 200, json: RoleListResponseSchema }],
      },
      POST: {
        summary: "Creates a role from the editor's form.",
        description: "new role → 201 `{role}` (409 when the id is taken)",
        body: { json: CreateRoleBodySchema },
        answers: [{ status: 201, json: RoleResponseSchema }],
        errors: [409],
      },
    },
  },
  {
    path: "/api/roles/{id}",
    params: { id: RoleIdSchema },
    methods: {
      GET: {
        summary: "One role file: its fields, unknown keys, body, raw text and etag.",
        description: "`{role}`: fields, unknown keys (`extra`), body, raw text, `etag`",
        answers: [{ status: 200, json: RoleAnyResponseSchema }],
        errors: [404],
      },
      PUT: {
        summary: "Saves the form (only changed fields are rewritten) or the raw file text.",
        description:
          "save the form (only changed lines; `fields.provides` left out keeps the file's `provides:` as it is) or the raw text; a stale `etag` is 409",
        body: { json: UpdateRoleBodySchema },
        answers: [{ status: 200, json: RoleAnyResponseSchema }],
        errors: [404, 409],
      },
      DELETE: {
        summary: "Deletes the role file.",
        description: "delete the role file",
        answers: [{ status: 200, json: DeletedResponseSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/roles/import",
    methods: {
      POST: {
        summary: "Imports the raw text of an `.md` role file, stored byte for byte.",
        description: "import an `.md` file byte for byte → 201 `{role}`; 409 when the id exists and `overwrite` is not set",
        body: { json: ImportRoleBodySchema },
        answers: [{ status: 201, json: RoleResponseSchema }],
        errors: [409],
      },
    },
  },
  {
    path: "/api/role-files",
    methods: {
      GET: {
        summary: "A role file by its exact name (one whose name is no valid id); the roles folder must list it.",
        description: "`{role}` of the role file with exactly that name (one whose name is no valid id), with `suggested_id`; 404 unless the roles folder lists that name",
        query: RoleFileQuerySchema,
        answers: [{ status: 200, json: RoleAnyResponseSchema }],
        errors: [404],
      },
      PUT: {
        summary: "Saves the file's raw text (it must load).",
        description: "save that file's raw text (it must load; a stale `etag` is 409)",
        query: RoleFileQuerySchema,
        body: { json: RawRoleBodySchema },
        answers: [{ status: 200, json: RoleAnyResponseSchema }],
        errors: [404, 409],
      },
      DELETE: {
        summary: "Deletes that file.",
        description: "delete that file",
        query: RoleFileQuerySchema,
        answers: [{ status: 200, json: DeletedResponseSchema }],
        errors: [404],
      },
    },
  },
  {
    path: "/api/role-files/rename",
    methods: {
      POST: {
        summary: "Renames a listed role file to `<id>.md` (the suggested id by default).",
        description: "rename a listed file to `<id>.md` (default: its `suggested_id`) → `{role}`; 409 `conflict` when that id exists",
        body: { json: RenameRoleFileBodySchema },
        answers: [{ status: 200, json: RoleAnyResponseSchema }],
        errors: [404, 409],
      },
    },
  },
  {
    path: "/api/mcp/servers",
    methods: {
      GET: {
        summary: "The servers of mcp.json (env and header values masked) with their status; a broken file gives its error.",
        description:
          "`{servers, error, file}`: every server of `mcp.json` (`name`, `type`, `command`/`args`/`env` or `url`/`headers`, env and header values masked `••••••••` unless only `${VAR}` references) with `status` `{running_in, processes: [{conversation_id, pid}], last_error, last_error_at, crashes, tools: [{name, model_name, description, effect}] | null, listed_at}`; a broken file gives `error` and no servers",
        answers: [{ status: 200, json: McpServerListSchema }],
      },
      POST: {
        summary: "Adds a server (409 when the name is in use).",
        description: "add a server to `mcp.json` → 201 `{server}` (masked); 409 when the name is in use",
        body: { json: PostMcpServerBodySchema },
        answers: [{ status: 201, json: McpServerAnswerSchema }],
        errors: [409],
      },
      PUT: {
        summary: "Replaces the whole `mcpServers` map; a masked value keeps the stored one.",
        description: "replace every server; a masked value keeps the stored one for that key; changed and removed servers stop everywhere",
        body: { json: PutMcpServersBodySchema },
        answers: [{ status: 200, json: McpServerListSchema }],
        errors: [409],
      },
    },
  },
  {
    path: "/api/mcp/servers/{name}",
    params: { name: McpServerNameSchema },
    methods: {
      PUT: {
        summary: "Adds or replaces one server; a masked env or header value keeps the stored one.",
        description:
          "add or replace one server → `{server}`; a masked value keeps the stored one (400 when nothing is stored for that key); the server stops in every conversation, so its next use starts with the new entry",
        body: { json: PutMcpServerBodySchema },
        answers: [{ status: 200, json: McpServerAnswerSchema }],
        errors: [409],
      },
      DELETE: {
        summary: "Removes one server from mcp.json and stops it everywhere.",
        description: "remove it from `mcp.json` (404 when absent) and stop it everywhere",
        answers: [{ status: 200, json: DeletedResponseSchema }],
        errors: [404, 409],
      },
    },
  },
  {
    path: "/api/mcp/servers/{name}/test",
    params: { name: McpServerNameSchema },
    methods: {
      POST: {
        summary: "Starts the server briefly, lists its tools and stops it.",
        description:
          "start it alone, list its tools, stop it → `{ok, tools, error, warnings}` (a server that fails answers 200 with `ok: false` and the error); 404 for a name not in `mcp.json`",
        answers: [{ status: 200, json: McpTestResultSchema }],
        errors: [404, 409],
      },
    },
  },
  {
    path: "/api/models/entries",
    methods: {
      GET: {
        summary: "models.json as Settings → Models edits it: entries (a key's source only), default, etag.",
        description:
          "`{file, etag, error, default, effective_default, entries}`: each entry's form fields (a URL's user info removed), `api_key` (`none`, `stored` with `set`, or `env` with the variable's name and `set`: never a key) and `referenced_by` (the default, fallbacks, aliases and side jobs that name it); a broken file gives `error` and no entries",
        answers: [{ status: 200, json: ModelSettingsSchema }],
      },
      POST: {
        summary: "Adds an entry (409 when its key is taken or models.json changed since `etag`); a typed key goes to the key store.",
        description:
          "add an entry → 201 with the new view; `api_key` `none`, `env` (a variable's name) or `stored` (the key, kept in `model-keys.json`, mode 0600, never in models.json); 409 when the key is taken, the file changed since `etag` or does not load; 400 with `details[].reason` for a fallback that names no model",
        body: { json: CreateModelEntryBodySchema },
        answers: [{ status: 201, json: ModelSettingsSchema }],
        errors: [409],
      },
    },
  },
  {
    path: "/api/models/entries/{key}",
    params: { key: ModelKeySchema },
    methods: {
      PUT: {
        summary: "Replaces an entry's form fields where it stands (its other keys kept); a stale `etag` is 409.",
        description: "replace the form's fields of an entry (unknown keys and the file's order kept); `api_key` `keep` (default), `none`, `env` or `stored`; 409 when models.json changed since `etag`",
        body: { json: UpdateModelEntryBodySchema },
        answers: [{ status: 200, json: ModelSettingsSchema }],
        errors: [409],
      },
      DELETE: {
        summary: "Removes an entry and its stored key; refused while the default, a fallback, an alias or a side job names it.",
        description: "remove an entry (and its stored key); 400 with `details[].reason` `referenced` naming what still uses it, or `builtin` for the offline model; 409 when models.json changed since `etag`",
        body: { json: DeleteModelEntryBodySchema },
        answers: [{ status: 200, json: ModelSettingsSchema }],
        errors: [409],
      },
    },
  },
  {
    path: "/api/models/default",
    methods: {
      PUT: {
        summary: "Makes a model the default of models.json; a stale `etag` is 409.",
        description: "set the file's `default` (a key of its models); the environment's endpoint, when set, stays the default in effect (`effective_default`)",
        body: { json: SetDefaultModelBodySchema },
        answers: [{ status: 200, json: ModelSettingsSchema }],
        errors: [409],
      },
    },
  },
  {
    path: "/api/models/discovery",
    methods: {
      GET: {
        summary: "The model servers last found on 127.0.0.1 (the look at start, or the first one now).",
        description: "`{scanned_at, ports, servers: [{provider, base_url, port, models}]}`: Ollama, LM Studio, vLLM and llama.cpp servers that answered on the ports of `ASTRION_DISCOVERY_PORTS` (127.0.0.1 only)",
        answers: [{ status: 200, json: DiscoveryReportSchema }],
      },
      POST: {
        summary: "Looks again now.",
        description: "look at every port again (each request bounded by a short deadline) and answer what was found",
        answers: [{ status: 200, json: DiscoveryReportSchema }],
      },
    },
  },
  {
    path: "/api/models/upstream",
    methods: {
      POST: {
        summary: "The models a server lists at `base_url` + `/models` (asked with the form's key), or why there are none.",
        description: "`{models, error}`: the model names of `GET <base_url>/models`, asked with the typed key, a variable's or the one stored for entry `key`; a server that does not answer or refuses gives `error` (200)",
        body: { json: UpstreamModelsBodySchema },
        answers: [{ status: 200, json: UpstreamModelsSchema }],
      },
    },
  },
  {
    path: "/api/models/{key}/doctor",
    params: { key: ModelKeySchema },
    methods: {
      POST: {
        summary: "The connection doctor: checks one registry entry's server, key, model, stream, tool calls, thinking switch and usage.",
        description:
          "run the connection doctor on that entry → `{model_key, provider, lines: [{check, status: green|amber|red, message, params, text, said?}], skipped, ok, ms}`: in order `server`, `key`, `model` (`/v1/models`), `stream`, `tool_call` (a tiny probe tool), `parallel_tool_calls`, `thinking`, `usage`; amber works with a workaround the app applies, red holds the fix; checks an earlier red line made meaningless are `skipped`. A server that fails answers 200 with red lines; 404 for an unknown key, 400 for the offline model",
        answers: [{ status: 200, json: DoctorReportSchema }],
        errors: [404],
      },
    },
  },
];
