/** Query factory and the rebuild command of the knowledge index (`/api/knowledge`). */
import { queryOptions } from "@tanstack/react-query";
import { KnowledgeReportSchema, RebuildAnswerSchema, RebuildBodySchema } from "@/lib/knowledge/schema";
import { apiFetch, bodyOf } from "./api";

/** `GET /api/knowledge`: polled every second while an index is being built. */
export function knowledgeQuery() {
  return queryOptions({
    queryKey: ["knowledge"] as const,
    queryFn: ({ signal }) => apiFetch("/api/knowledge", KnowledgeReportSchema, { signal }),
    refetchInterval: (q) => (q.state.data?.projects.some((p) => p.state === "building") ? 1000 : false),
  });
}

/** `POST /api/knowledge/rebuild`. */
export async function rebuildKnowledgeIndex(projectPath: string) {
  return apiFetch("/api/knowledge/rebuild", RebuildAnswerSchema, { method: "POST", body: bodyOf(RebuildBodySchema, { project_path: projectPath }) });
}
