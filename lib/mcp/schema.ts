/**
 * The one source of every MCP shape: `<data folder>/mcp.json` (Claude Code's `.mcp.json`
 * layout), the HTTP API's bodies and answers. Shared by server and browser; pure.
 *
 * mcp.json:
 * ```json
 * { "mcpServers": {
 *     "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_TOKEN": "${GITHUB_TOKEN}" } },
 *     "remote": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${API_TOKEN}" } } } }
 * ```
 */
import { z } from "zod";

/**
 * A server's name: what `mcp__<server>__<tool>` carries, so only `[A-Za-z0-9_-]` and never `__`
 * (which separates the server from the tool), starting and ending with a letter or digit.
 */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_))*$/;

export const McpServerNameSchema = z
  .string()
  .max(48, "at most 48 characters")
  .regex(MCP_SERVER_NAME_PATTERN, "use letters, digits, '-' and single '_' only, starting with a letter or digit")
  .refine((n) => !n.endsWith("_"), "a name cannot end with '_'");

/** Environment variables or headers: names to values (values may hold `${VAR}` references). */
const StringMapSchema = z.record(
  z.string().min(1, "a name is required").max(200).regex(/^[^\s=:\u0000]+$/, "a name without spaces, '=' or ':'"),
  z.string().max(8192, "at most 8192 characters"),
);

/** A server started as a child process, spoken to over its stdin/stdout. */
export const McpStdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().trim().min(1, "a command is required").max(4096),
  args: z.array(z.string().max(8192)).max(200).optional(),
  env: StringMapSchema.optional(),
});

/** A server reached over Streamable HTTP. */
export const McpHttpServerSchema = z.looseObject({
  type: z.literal("http"),
  url: z
    .string()
    .max(4096)
    .refine((u) => /^https?:\/\//i.test(u) || u.startsWith("${"), "an http:// or https:// URL"),
  headers: StringMapSchema.optional(),
});

/** One server entry: stdio (`type` absent or `"stdio"`) or Streamable HTTP (`type: "http"`). */
export const McpServerConfigSchema = z.unknown().transform((value, ctx): McpStdioServer | McpHttpServer => {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    ctx.addIssue({ code: "custom", message: "a server entry is an object with a command (stdio) or type \"http\" and a url" });
    return z.NEVER;
  }
  const type = (value as { type?: unknown }).type;
  if (type !== undefined && type !== "stdio" && type !== "http") {
    ctx.addIssue({ code: "custom", path: ["type"], message: `type "${String(type)}" is not supported: use "stdio" (or no type) or "http"` });
    return z.NEVER;
  }
  const parsed = (type === "http" ? McpHttpServerSchema : McpStdioServerSchema).safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    return z.NEVER;
  }
  return parsed.data;
}).describe('A server entry, checked by the server: stdio `{type?: "stdio", command, args?, env?}` or Streamable HTTP `{type: "http", url, headers?}` (McpStdioServer, McpHttpServer).');

export type McpStdioServer = z.infer<typeof McpStdioServerSchema>;
export type McpHttpServer = z.infer<typeof McpHttpServerSchema>;
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** The whole file. Unknown top-level keys survive a save. */
export const McpFileSchema = z.looseObject({
  mcpServers: z
    .record(z.string(), McpServerConfigSchema)
    .superRefine((servers, ctx) => {
      for (const name of Object.keys(servers)) {
        const r = McpServerNameSchema.safeParse(name);
        if (!r.success) ctx.addIssue({ code: "custom", path: [name], message: `server name "${name}": ${r.error.issues[0]?.message ?? "invalid"}` });
      }
    })
    .default({}),
});
export type McpFile = z.infer<typeof McpFileSchema>;

/** True for an entry reached over HTTP. */
export function isHttpServer(config: McpServerConfig): config is McpHttpServer {
  return config.type === "http";
}

/** What a tool does to the world, from its `annotations.readOnlyHint` (only `true` reads). */
export const McpToolEffectSchema = z.enum(["read", "write"]);
export type McpToolEffect = z.infer<typeof McpToolEffectSchema>;

/** One tool of a server, as the settings page shows it. */
export const McpToolInfoSchema = z.object({
  name: z.string(),
  /** `mcp__<server>__<tool>`, or null when that name is not a valid function name (the tool is skipped). */
  model_name: z.string().nullable(),
  description: z.string(),
  effect: McpToolEffectSchema,
});
export type McpToolInfo = z.infer<typeof McpToolInfoSchema>;

/** A server as the API shows it: env and header values masked unless they are only `${VAR}` references. */
export const McpServerViewSchema = z.object({
  name: z.string(),
  type: z.enum(["stdio", "http"]),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  status: z.object({
    /** Conversations in which the server runs now. */
    running_in: z.number().int(),
    /** The live connections: which conversation, and the child's pid for a stdio server. */
    processes: z.array(z.object({ conversation_id: z.string(), pid: z.number().int().nullable() })),
    last_error: z.string().nullable(),
    last_error_at: z.string().nullable(),
    /** Crashes in a row (the restart backs off while this grows). */
    crashes: z.number().int(),
    /** From the last listing (a run or a test); null when never listed since the server started. */
    tools: z.array(McpToolInfoSchema).nullable(),
    listed_at: z.string().nullable(),
  }),
});
export type McpServerView = z.infer<typeof McpServerViewSchema>;

/** `GET /api/mcp/servers`. `error` is set when mcp.json does not load (then `servers` is empty). */
export const McpServerListSchema = z.object({
  servers: z.array(McpServerViewSchema),
  error: z.string().nullable(),
  file: z.string(),
});
export type McpServerList = z.infer<typeof McpServerListSchema>;

/** Answer of `POST /api/mcp/servers` and `PUT /api/mcp/servers/{name}`: the server as stored (masked). */
export const McpServerAnswerSchema = z.object({ server: McpServerViewSchema });

/** `PUT /api/mcp/servers/{name}`: the entry; a masked value keeps the stored one. */
export const PutMcpServerBodySchema = z.object({ config: McpServerConfigSchema });
export type PutMcpServerBody = z.infer<typeof PutMcpServerBodySchema>;

/** `PUT /api/mcp/servers`: the whole `mcpServers` map; masked values keep the stored ones. */
export const PutMcpServersBodySchema = z.object({ mcpServers: McpFileSchema.shape.mcpServers });
export type PutMcpServersBody = z.infer<typeof PutMcpServersBodySchema>;

/** `POST /api/mcp/servers/{name}/test`. */
export const McpTestResultSchema = z.object({
  ok: z.boolean(),
  tools: z.array(McpToolInfoSchema),
  error: z.string().nullable(),
  warnings: z.array(z.string()),
});
export type McpTestResult = z.infer<typeof McpTestResultSchema>;

/** `POST /api/mcp/servers`: a new server (409 when the name is in use). */
export const PostMcpServerBodySchema = z.object({ name: McpServerNameSchema, config: McpServerConfigSchema });
export type PostMcpServerBody = z.infer<typeof PostMcpServerBodySchema>;
