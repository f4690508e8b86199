/**
 * The name of each schema the route table uses, taken from the contract modules' exports
 * (`CreateConversationBodySchema` → `CreateConversationBody`), so a component of the OpenAPI
 * document is called what the code calls it and no name is written twice. The route-table test
 * also holds the identifiers a handler parses with to these names.
 */
import { z } from "zod";
import * as context from "@/lib/context/report";
import * as activity from "@/lib/contracts/activity";
import * as envelope from "@/lib/contracts/envelope";
import * as events from "@/lib/contracts/events";
import * as http from "@/lib/contracts/http";
import * as indexReport from "@/lib/contracts/index-report";
import * as interventions from "@/lib/contracts/interventions";
import * as onDisk from "@/lib/contracts/on-disk";
import * as people from "@/lib/contracts/people";
import * as presence from "@/lib/contracts/presence";
import * as search from "@/lib/contracts/search";
import * as timelineRecord from "@/lib/contracts/timeline-record";
import * as exportSchemas from "@/lib/export/schema";
import * as gateway from "@/lib/gateway/schema";
import * as knowledge from "@/lib/knowledge/schema";
import * as mcp from "@/lib/mcp/schema";
import * as memory from "@/lib/memory/schema";
import * as modelSettings from "@/lib/model-settings/schema";
import * as roles from "@/lib/roles/schema";
import * as sharedContext from "@/lib/shared-context/schema";

const MODULES: readonly Readonly<Record<string, unknown>>[] = [
  http,
  onDisk,
  people,
  presence,
  activity,
  envelope,
  events,
  interventions,
  timelineRecord,
  search,
  indexReport,
  context,
  exportSchemas,
  gateway,
  knowledge,
  mcp,
  memory,
  modelSettings,
  roles,
  sharedContext,
];

function collectNames(): Map<z.ZodType, string[]> {
  const names = new Map<z.ZodType, string[]>();
  const owner = new Map<string, z.ZodType>();
  for (const mod of MODULES) {
    for (const [key, value] of Object.entries(mod)) {
      if (!key.endsWith("Schema") || !(value instanceof z.ZodType)) continue;
      const name = key.slice(0, -"Schema".length);
      if ((owner.get(name) ?? value) !== value) throw new Error(`Two contract modules export different schemas as ${key}.`);
      owner.set(name, value);
      const known = names.get(value) ?? [];
      if (!known.includes(name)) names.set(value, [...known, name]);
    }
  }
  return names;
}

const NAMES = collectNames();

/** Every name a schema is exported under (an alias, `export const B = A`, gives two). */
export function schemaAliases(schema: z.ZodType): readonly string[] {
  return NAMES.get(schema) ?? [];
}

/** The name of a schema in the document: the shortest of its export names (then alphabetical). */
export function schemaName(schema: z.ZodType): string {
  const [name] = [...schemaAliases(schema)].sort((a, b) => a.length - b.length || a.localeCompare(b));
  if (!name) throw new Error("The route table uses a schema no contract module exports as <Name>Schema; export it so it has a name.");
  return name;
}

/** Every exported schema with its name. */
export function namedSchemas(): Array<[string, z.ZodType]> {
  return [...NAMES.keys()].map((schema) => [schemaName(schema), schema]);
}
