/**
 * What the composition root makes once per process for the engine (lib/server/app.ts), made for
 * tests that run the real engine over a storage and a bus of their choosing, with one chat model
 * for every call, no memory and no embeddings.
 */
import type { Bus } from "@/lib/bus";
import { GatewayLastErrors } from "@/lib/gateway";
import { AgentTokens } from "@/lib/governance";
import { DEFAULT_KNOWLEDGE_LIMITS } from "@/lib/knowledge/config";
import { KnowledgeService } from "@/lib/knowledge/service";
import { McpManager } from "@/lib/mcp";
import type { ChatModel } from "@/lib/models/types";
import type { RoleLibrary } from "@/lib/roles/library";
import type { EngineDeps } from "@/lib/runtime/team/deps";
import { DistillState } from "@/lib/runtime/team/distilled-progress";
import { RequestClock } from "@/lib/shared-context/clock";
import { FileQueues } from "@/lib/store/atomic";
import { ProtectedFolders, Workspace } from "@/lib/workspace";

/** The engine's parts for a test: `storage` and `conversations`, `bus`, `roles`, `model` are the test's. */
export function testEngineDeps(parts: { root: string; storage: EngineDeps["storage"]; conversations: EngineDeps["conversations"]; roles: RoleLibrary; model: ChatModel; bus: Bus }): EngineDeps {
  const queues = new FileQueues();
  const workspace = new Workspace({ protectedFolders: new ProtectedFolders(), queues });
  return {
    root: parts.root,
    storage: parts.storage,
    conversations: parts.conversations,
    roles: parts.roles,
    models: { modelFor: async () => parts.model, embedderFor: async () => null, subscribeHealth: () => () => undefined },
    memory: null,
    bus: parts.bus,
    mcp: new McpManager(),
    tokens: new AgentTokens(),
    gatewayErrors: new GatewayLastErrors(),
    clock: new RequestClock(),
    knowledge: new KnowledgeService(parts.root, DEFAULT_KNOWLEDGE_LIMITS, { queues, workspace }),
    distill: new DistillState(parts.root, queues),
    workspace,
  };
}
