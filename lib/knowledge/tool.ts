/**
 * `search_knowledge` as a tool definition, in the registry's style (its JSON Schema generated
 * from the zod schema). It is not in the registry's `TOOLS`: it is offered per task, only when
 * the router says the task needs precise facts (lib/runtime/tool-providers/knowledge.ts). Pure.
 */
import { defineTool } from "@/lib/tools/define";
import { SearchKnowledgeArgsSchema } from "./schema";

/** The tool. */
export const KNOWLEDGE_TOOL = defineTool({
  name: "search_knowledge",
  audience: "agent",
  action: { kind: "search", target: "query" },
  readOnly: true,
  description:
    "Search the project's documents and code for the passages that state a precise fact (a field's definition, where a function lives, a setting's default). Narrows by path, file name and Markdown heading, ranks by relevance; returns passages as file:line-range with their heading.",
  args: SearchKnowledgeArgsSchema,
});
