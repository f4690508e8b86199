/**
 * Schemas of the role library: the editable fields of a role file's frontmatter (seed fields plus
 * this product's extensions), and the shapes the API returns. Shared by server and client, so the
 * editor shows the same validation messages the server enforces.
 */
import { z } from "zod";
import { McpServerNameSchema } from "@/lib/mcp/schema";
import { ProvidesSchema } from "@/lib/abilities/schema";
import { PERMISSIONS } from "@/lib/tools/define";
import { CommandEntrySchema, ToolPolicySchema } from "./policy-schema";

/**
 * A role id: also its file name (`<id>.md`). Letters, digits, `-` and `_` only, so no id can
 * name a path outside the roles folder (`..`, `/`, `%2e` and NUL are all refused).
 */
export const ROLE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
export const RoleIdSchema = z
  .string()
  .regex(ROLE_ID_PATTERN, "use letters, digits, '-' and '_' only (at most 100), starting with a letter or digit");

/**
 * The exact name of a file in the roles folder, for a file whose name is no valid id. Only a
 * name the folder's listing holds is ever used (lib/roles/library.ts); this schema just keeps
 * out what no listing can hold.
 */
export const RoleFileNameSchema = z
  .string()
  .min(1, "a file name is required")
  .max(255, "at most 255 characters")
  .regex(/^[^/\\\u0000]+$/, "a file name without a folder part");

/** A capability tag such as `code-review` or `python`; the seed writes a set as `code-review|python`. */
export const CapabilityTagSchema = z
  .string()
  .regex(/^[^\s|,]{1,64}$/, "a tag is one word without spaces, '|' or ',' (at most 64 characters)");

/** Permissions a role may hold (the names the tools need, lib/tools/define.ts): `write` allows the workspace `write_file` tool, `execute` the `run_command` tool. */
export const PermissionSchema = z.enum(PERMISSIONS);
export type Permission = z.infer<typeof PermissionSchema>;

export const ThinkingModeSchema = z.enum(["fast", "thinking"]);

/**
 * The fields the role editor edits. Optional ones are omitted (not empty) when unset.
 * Unknown frontmatter keys are not part of this: they are kept as they are on every save.
 */
export const RoleFieldsSchema = z.object({
  id: RoleIdSchema,
  name: z.string().trim().min(1, "a name is required").max(120, "at most 120 characters"),
  description: z.string().trim().min(1, "a description is required").max(4000, "at most 4000 characters"),
  model: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/, "a model key: letters, digits, '.', '_', ':', '/' and '-'")
    .optional(),
  thinking_mode: ThinkingModeSchema.optional(),
  capabilities: z.array(CapabilityTagSchema).max(64).optional(),
  tools: z.array(z.string().trim().min(1).max(100)).max(100).optional(),
  permissions: z.array(PermissionSchema).optional(),
  max_concurrency: z.number().int("a whole number").min(1, "at least 1").max(64, "at most 64").optional(),
  // --- MCP (issue 10): the servers of mcp.json whose tools this role's agents are offered.
  mcp_servers: z.array(McpServerNameSchema).max(64, "at most 64 servers").optional(),
  // --- abilities (issue 10, seed 003 §3.2): what an agent of the role offers its teammates as tools.
  provides: ProvidesSchema.optional(),
  // ---- protocol gateway (issue 10): the gateway.json sources whose tools this role's agents get
  gateway: z
    .array(z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,23}$/, "a gateway source name: letters, digits, '-' and single '_' (at most 24)"))
    .max(32)
    .optional(),
  // Approval policy (issue 10, ./policy-schema.ts, decided by lib/governance/tool-policy.ts): per
  // tool `allow | ask | deny`, and the commands `run_command` may run without asking.
  tool_policy: ToolPolicySchema.optional(),
  allowed_commands: z.array(CommandEntrySchema).max(100, "at most 100 commands").optional(),
});
export type RoleFields = z.infer<typeof RoleFieldsSchema>;

/** A role file that loaded: normalized fields, the unknown keys, the prompt body and the raw text. */
export const RoleDetailSchema = z.object({
  kind: z.literal("role"),
  id: z.string(),
  file: z.string(),
  /** Content hash of the file as read; a save names it so a concurrent edit is a 409, not a loss. */
  etag: z.string(),
  /** The id is the file name's stem, which is not always a valid id (see `suggested_id`). */
  fields: RoleFieldsSchema.extend({ id: z.string() }),
  /** Frontmatter keys this product does not edit (e.g. Claude Code's `color`), as parsed. */
  extra: z.record(z.string(), z.unknown()),
  body: z.string(),
  raw: z.string(),
  /** Things that load but deserve a look, e.g. an `id` that differs from the file name. */
  warnings: z.array(z.string()),
  /** Set when the file name is no valid `<id>.md`: the free id a rename would give it. */
  suggested_id: z.string().optional(),
});
export type RoleDetail = z.infer<typeof RoleDetailSchema>;

/** A role file that does not load; it keeps its raw text so it can be fixed in the editor. */
export const RoleErrorDetailSchema = z.object({
  kind: z.literal("error"),
  id: z.string(),
  file: z.string(),
  etag: z.string(),
  raw: z.string(),
  error: z.object({ message: z.string(), line: z.number().int().optional() }),
  suggested_id: z.string().optional(),
});
export type RoleErrorDetail = z.infer<typeof RoleErrorDetailSchema>;

export const RoleAnyDetailSchema = z.discriminatedUnion("kind", [RoleDetailSchema, RoleErrorDetailSchema]);
export type RoleAnyDetail = z.infer<typeof RoleAnyDetailSchema>;

/** One card of the role library. */
export const RoleListEntrySchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("role"),
    id: z.string(),
    file: z.string(),
    name: z.string(),
    description: z.string(),
    model: z.string().optional(),
    thinking_mode: ThinkingModeSchema.optional(),
    capabilities: z.array(z.string()),
    /** Only when `capabilities` is empty: tags derived from name and description (issue 9), shown as derived. */
    derived_capabilities: z.array(z.string()).optional(),
    tools: z.array(z.string()),
    permissions: z.array(z.string()),
    /**
     * What an agent of this role is given, as the runtime computes it (lib/roles/tool-mapping):
     * with `tools:` they alone decide, without it `permissions:` (read by default) do.
     */
    access: z.object({ permissions: z.array(PermissionSchema), project_tools: z.array(z.string()) }),
    mcp_servers: z.array(z.string()).optional(),
    /** The abilities the role provides (`provides:`), by name and description. */
    provides: z.array(z.object({ name: z.string(), description: z.string() })).optional(),
    /** Protocol gateway sources the role grants (`gateway:`), when it has any. */
    gateway: z.array(z.string()).optional(),
    /** The role's approval policy (issue 10), when its file sets one. */
    tool_policy: ToolPolicySchema.optional(),
    allowed_commands: z.array(CommandEntrySchema).optional(),
    color: z.string().optional(),
    warnings: z.array(z.string()),
    /** Set when the file name is no valid `<id>.md` (the card offers "rename to" it). */
    suggested_id: z.string().optional(),
  }),
  z.object({
    kind: z.literal("error"),
    id: z.string(),
    file: z.string(),
    message: z.string(),
    /** The file line the problem is on, when one is. */
    line: z.number().int().optional(),
    suggested_id: z.string().optional(),
  }),
]);
export type RoleListEntry = z.infer<typeof RoleListEntrySchema>;

/** `GET /api/roles` answer: every card of the library. */
export const RoleListResponseSchema = z.object({ roles: z.array(RoleListEntrySchema) });

/** Answer of `POST /api/roles` and `POST /api/roles/import`: the role file written, which loads. */
export const RoleResponseSchema = z.object({ role: RoleDetailSchema });

/** Answer of `GET|PUT /api/roles/{id}`, `GET|PUT /api/role-files` and the rename: the file, loaded or not. */
export const RoleAnyResponseSchema = z.object({ role: RoleAnyDetailSchema });

/** `POST /api/roles`: a new role from the form. */
export const CreateRoleBodySchema = z.object({
  fields: RoleFieldsSchema,
  body: z.string().max(200_000),
});
export type CreateRoleBody = z.infer<typeof CreateRoleBodySchema>;

/**
 * `PUT /api/roles/[id]`: either a form save (`fields` + `body`; the id cannot change) or a raw
 * text save (`raw`), used to fix a file that does not parse. `etag` is the one the client read.
 */
/** A raw text save: the whole file, which must load. */
export const RawRoleBodySchema = z.object({
  etag: z.string().optional(),
  raw: z.string().max(262_144),
});
export type RawRoleBody = z.infer<typeof RawRoleBodySchema>;

export const UpdateRoleBodySchema = z.union([
  z.object({
    etag: z.string().optional(),
    fields: RoleFieldsSchema.omit({ id: true }),
    body: z.string().max(200_000),
  }),
  RawRoleBodySchema,
]);
export type UpdateRoleBody = z.infer<typeof UpdateRoleBodySchema>;

/** `GET|PUT|DELETE /api/role-files?name=…`: a role file by its exact name (one whose name is no valid id). */
export const RoleFileQuerySchema = z.object({ name: RoleFileNameSchema });

/** `POST /api/role-files/rename`: gives a listed file a valid id (the suggested one by default); never overwrites. */
export const RenameRoleFileBodySchema = z.object({
  file: RoleFileNameSchema,
  id: RoleIdSchema.optional(),
});
export type RenameRoleFileBody = z.infer<typeof RenameRoleFileBodySchema>;

/** `POST /api/roles/import`: the raw text of an `.md` role file, kept byte for byte. */
export const ImportRoleBodySchema = z.object({
  content: z.string().min(1, "the file is empty").max(262_144, "at most 256 KiB"),
  file_name: z.string().max(255).optional(),
  overwrite: z.boolean().optional(),
});
export type ImportRoleBody = z.infer<typeof ImportRoleBodySchema>;
