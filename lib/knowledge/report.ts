import "server-only";
/**
 * The knowledge index as the HTTP API shows it: one row per project folder known from the
 * conversations (every conversation, archived ones too), and the rebuild of one of them. Only a
 * folder some conversation names can be indexed through the API: the API is no way to read
 * arbitrary folders.
 */
import type { ConversationCatalog } from "@/lib/store";
import { NotFoundError } from "@/lib/contracts/errors";
import type { Embedder } from "@/lib/models/embeddings";
import type { KnowledgeReport, ProjectIndexStatus, RebuildBody } from "./schema";
import type { KnowledgeService } from "./service";

/** Pages of the conversation list read at most (100 conversations each). */
const MAX_PAGES = 200;

/**
 * Project folders of the conversations: `{ given, real }`, real paths deduplicated; folders that
 * are gone or refused (by the service's workspace) are left out.
 */
async function knownProjects(service: KnowledgeService, store: ConversationCatalog): Promise<Array<{ given: string; real: string }>> {
  const { resolveProjectPath } = service.parts.workspace;
  const given = new Set<string>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await store.list({ status: "all", offset: page * 100, limit: 100 });
    for (const item of list.items) if (item.project_path) given.add(item.project_path);
    if (list.items.length < 100) break;
  }
  const out = new Map<string, { given: string; real: string }>();
  for (const p of given) {
    const real = await resolveProjectPath(p, ".").then((r) => r.root).catch(() => null);
    if (real && !out.has(real)) out.set(real, { given: p, real });
  }
  return [...out.values()].sort((a, b) => a.real.localeCompare(b.real));
}

/** `GET /api/knowledge`. */
export async function knowledgeReport(service: KnowledgeService, store: ConversationCatalog): Promise<KnowledgeReport> {
  const projects = await knownProjects(service, store);
  await Promise.all(projects.map((p) => service.project(p.real).peek()));
  return {
    projects: service.status(projects.map((p) => p.real)),
    limits: { max_file_bytes: service.limits.maxFileBytes, max_files: service.limits.maxFiles, wait_ms: service.limits.waitMs },
  };
}

/**
 * `POST /api/knowledge/rebuild`: throws the project's stored index away and builds it again in
 * the background; answers its state at once (building).
 * @throws NotFoundError when no conversation names that folder.
 */
export async function rebuildKnowledge(service: KnowledgeService, store: ConversationCatalog, body: RebuildBody, embedder: Embedder | null): Promise<ProjectIndexStatus> {
  const projects = await knownProjects(service, store);
  const real = await service.parts.workspace.resolveProjectPath(body.project_path, ".").then((r) => r.root).catch(() => null);
  const hit = projects.find((p) => p.given === body.project_path || p.real === body.project_path || p.real === real);
  if (!hit) throw new NotFoundError(`No conversation has the project folder ${JSON.stringify(body.project_path)}; only those folders are indexed.`, { project_path: body.project_path });
  service.rebuild(hit.real, embedder).catch(() => undefined);
  return service.project(hit.real).status();
}
