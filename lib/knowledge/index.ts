/**
 * Public face of knowledge retrieval (issue 11, seed 003 §5.3), pure parts: the file and API
 * schemas, the limits, chunking, ranking, the reranker's contract and the router that
 * decides when `search_knowledge` is offered. The I/O (the per-project index and the service) is
 * `@/lib/knowledge/service` (server only).
 */
export * from "./schema";
;
;
export { KNOWLEDGE_HINT, routeKnowledge, type KnowledgeRouting } from "./route";
;
export { KNOWLEDGE_TOOL } from "./tool";
