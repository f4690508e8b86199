/**
 * The shared-context tools, offered to the Team Leader and to every sub-agent. Their executor
 * (arbitration, the file) is ./tools.ts; their definitions are here, pure, made with the tool
 * kernel (lib/tools); the registry of every tool (lib/team-tools/registry.ts) lists them too.
 */
import { z } from "zod";
import { argsByName, defineTool, toolSpec } from "@/lib/tools/define";
import type { ToolSpec } from "@/lib/models/types";
import { MAX_WRITE_LENGTH, SharedKeySchema, VersionSchema, WriteModeSchema } from "./schema";

/** Models sometimes send numbers as strings (`"3"`); accept those, nothing looser. */
const LooseVersion = z.preprocess((v) => (typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v), VersionSchema.optional());

/** The shared-context tools, in the order they are offered. */
export const SHARED_CONTEXT_TOOLS = [
  defineTool({
    name: "read_shared_context",
    audience: "both",
    action: { kind: "shared_read" },
    readOnly: true,
    description: "Read the team's shared context: every key with its value, version, author and time, and writes waiting for a person. Read before you overwrite.",
    args: z.object({}).loose(),
  }),
  defineTool({
    name: "update_shared_context",
    audience: "both",
    action: { kind: "shared_write" },
    readOnly: false,
    effect: "internal",
    description:
      "Write a key of the team's shared context. mode 'append' adds your text on a new line and never conflicts. mode 'overwrite' replaces the value and needs expected_version (the version you read; 0 for a new key). If someone changed the key since you read it, the write is arbitrated: the Team Leader (or a person) outranks agents, otherwise the later request wins, and requests too close together wait for a person.",
    args: z
      .object({
        key: SharedKeySchema.describe("Short name, e.g. 'api.status' or 'plan'."),
        value: z.string().max(MAX_WRITE_LENGTH),
        mode: WriteModeSchema,
        expected_version: LooseVersion.describe("Required for overwrite: the version you read (0 if the key did not exist)."),
      })
      .superRefine((a, ctx) => {
        if (a.mode === "overwrite" && a.expected_version === undefined) {
          ctx.addIssue({ code: "custom", path: ["expected_version"], message: "an overwrite needs the version you read (0 for a new key); call read_shared_context first" });
        }
      }),
  }),
] as const;

/** Argument schemas of the shared-context tools. */
export const SHARED_CONTEXT_TOOL_ARGS = argsByName(SHARED_CONTEXT_TOOLS);

/** Names of the shared-context tools. */
export type SharedContextToolName = keyof typeof SHARED_CONTEXT_TOOL_ARGS;

/** Shared-context tools that only read. */
export const SHARED_CONTEXT_READ_ONLY_TOOLS: ReadonlySet<string> = new Set(SHARED_CONTEXT_TOOLS.filter((t) => t.readOnly).map((t) => t.name));

/** Whether `name` is one of the shared-context tools. */
export function isSharedContextTool(name: string): name is SharedContextToolName {
  return SHARED_CONTEXT_TOOLS.some((t) => t.name === name);
}

/** The shared-context tool specs, for the leader and for every sub-agent alike. */
export function sharedContextTools(): ToolSpec[] {
  return SHARED_CONTEXT_TOOLS.map(toolSpec);
}
