/**
 * Schemas of the protocol gateway: `<data folder>/gateway.json` (the one source of its format)
 * and what `GET /api/gateway` answers. Shared by server and client; pure.
 *
 * A source is one non-MCP API (first dialect: OpenAPI 3.0/3.1). Its mappings are a dictionary
 * between the API's dialect and the internal one: field renames (full dotted paths on both
 * sides), linear unit conversions and time formats, both keyed by the INTERNAL field path.
 */
import { z } from "zod";

/** A source name: part of its tools' names (`gw__<source>__<operation>`), so no `__` inside. */
export const GatewaySourceNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,23}$/, "a source name: letters, digits, '-' and single '_' (at most 24), starting with a letter or digit");

/** A dotted field path (`amount`, `buyer.fullName`); arrays on the way are walked element by element. */
const FieldPathSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^.\s]+(?:\.[^.\s]+)*$/, "a dotted field path such as customer.name");

/** A rename: the same field in both dialects (same number of path segments). */
export const FieldRenameSchema = z
  .object({
    internal: FieldPathSchema,
    api: FieldPathSchema,
  })
  .strict()
  .refine((r) => r.internal.split(".").length === r.api.split(".").length, { message: "internal and api paths must have the same number of segments" });

/** A linear unit conversion: `api = internal × factor + offset` (cents ↔ yuan: factor 100). */
export const UnitConversionSchema = z
  .object({
    field: FieldPathSchema.describe("the internal field path"),
    factor: z.number().finite().refine((n) => n !== 0, "factor cannot be 0"),
    offset: z.number().finite().default(0),
    /** Shown to the model in the field's description, e.g. "yuan". */
    unit: z.string().max(40).optional(),
  })
  .strict();

/** A time format of the API side; the internal side is always ISO 8601. */
export const ApiTimeFormatSchema = z.union([
  z.enum(["epoch_s", "epoch_ms", "iso8601"]),
  z
    .object({
      /** Tokens YYYY MM DD HH mm ss SSS, Z (+0800) and ZZ (+08:00); literal text in [brackets]. */
      pattern: z.string().min(1).max(80),
      /** The zone of a pattern without Z, and the one written: UTC, ±HH:MM, or an IANA name (Asia/Shanghai). */
      timezone: z.string().min(1).max(60).default("UTC"),
    })
    .strict(),
]);
export type ApiTimeFormat = z.infer<typeof ApiTimeFormatSchema>;

/** A time field: its internal path and the API's format. */
export const TimeFormatMappingSchema = z.object({ field: FieldPathSchema, api: ApiTimeFormatSchema }).strict();

/** The declared mappings of one source. */
export const GatewayMappingsSchema = z
  .object({
    fields: z.array(FieldRenameSchema).max(500).default([]),
    units: z.array(UnitConversionSchema).max(200).default([]),
    times: z.array(TimeFormatMappingSchema).max(200).default([]),
  })
  .strict();
export type GatewayMappings = z.infer<typeof GatewayMappingsSchema>;

/** A header value; `${NAME}` is replaced by the environment variable NAME when a call is made. */
const HeaderValueSchema = z.string().max(4096);

/** One OpenAPI source. */
export const OpenApiSourceSchema = z
  .object({
    type: z.literal("openapi"),
    /** A file path relative to the data folder (JSON or YAML), or the spec inline. */
    spec: z.union([z.string().min(1).max(500), z.record(z.string(), z.unknown())]),
    /** Overrides the spec's first server; http(s) only. */
    base_url: z.string().max(2000).optional(),
    headers: z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "a header name"), HeaderValueSchema).default({}),
    /** Operations to expose (operationId or `METHOD /path`); all when omitted. */
    operations: z.array(z.string().min(1).max(300)).max(500).optional(),
    /** Deadline of one call in ms (default ASTRION_GATEWAY_TIMEOUT_MS, 15000). */
    timeout_ms: z.number().int().min(100).max(600_000).optional(),
    mappings: GatewayMappingsSchema.default({ fields: [], units: [], times: [] }),
    description: z.string().max(2000).optional(),
  })
  .strict();
export type OpenApiSource = z.infer<typeof OpenApiSourceSchema>;

/** `<data folder>/gateway.json`. */
export const GatewayFileSchema = z
  .object({
    sources: z.record(GatewaySourceNameSchema, OpenApiSourceSchema).default({}),
  })
  .strict();
export type GatewayFile = z.infer<typeof GatewayFileSchema>;

/** What a gateway tool does to the world: GET/HEAD read, every other method writes. */
export const GatewayEffectSchema = z.enum(["read", "write"]);
export type GatewayEffect = z.infer<typeof GatewayEffectSchema>;

/** One tool as `GET /api/gateway` lists it. */
export const GatewayToolInfoSchema = z.object({
  name: z.string(),
  operation: z.string(),
  method: z.string(),
  path: z.string(),
  effect: GatewayEffectSchema,
  description: z.string(),
});

/** One source as `GET /api/gateway` lists it: never its header values. */
export const GatewaySourceInfoSchema = z.object({
  name: z.string(),
  base_url: z.string().nullable(),
  header_names: z.array(z.string()),
  tools: z.array(GatewayToolInfoSchema),
  warnings: z.array(z.string()),
  /** Why the source offers no tool (its spec does not load…), or null. */
  error: z.string().nullable(),
  /** The last failed call of one of its tools since the server started (status and message, no secret). */
  last_call_error: z.object({ tool: z.string(), message: z.string(), at: z.string() }).nullable(),
});
export type GatewaySourceInfo = z.infer<typeof GatewaySourceInfoSchema>;

/** `GET /api/gateway`. */
export const GatewayReportSchema = z.object({
  /** Whether gateway.json exists. */
  present: z.boolean(),
  /** Why gateway.json does not load, or null. */
  error: z.string().nullable(),
  sources: z.array(GatewaySourceInfoSchema),
});
export type GatewayReport = z.infer<typeof GatewayReportSchema>;
