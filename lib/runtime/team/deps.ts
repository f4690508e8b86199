import "server-only";
/**
 * What the engine is given by its creator (the composition root, lib/server/app.ts): the data
 * folder, the conversations' storage and their lifecycle, the role library, the models, long-term
 * memory, the bus, the MCP manager and the workspace. (The tool
 * providers are given to the engine beside these: lib/runtime/engine.ts.) The engine never reaches
 * for the app; everything it uses comes through here or through its ports (./ports.ts).
 */
import type { Bus } from "@/lib/bus";
import type { GatewayLastErrors } from "@/lib/gateway";
import type { AgentTokens } from "@/lib/governance";
import type { KnowledgeService } from "@/lib/knowledge/service";
import type { RequestClock } from "@/lib/shared-context/clock";
import type { McpManager } from "@/lib/mcp";
import type { ModelRegistry } from "@/lib/models/model-registry";
import type { RoleLibrary } from "@/lib/roles";
import type { Workspace } from "@/lib/workspace";
import type { DistillState } from "./distilled-progress";
import type { MemoryPort } from "./memory-port";
import type { ConversationLifecycle, EngineStorage } from "./ports";

export interface EngineDeps {
  /** The data folder. */
  readonly root: string;
  /** The conversations' storage (./ports.ts): the engine names no implementation of it. */
  readonly storage: EngineStorage;
  /** How the engine opens and lets go of the storage's conversations, and finds them at boot. */
  readonly conversations: ConversationLifecycle;
  readonly roles: RoleLibrary;
  /** Model keys → models and the embedder (lib/models/model-registry.ts). */
  readonly models: Pick<ModelRegistry, "modelFor" | "embedderFor" | "subscribeHealth">;
  /** Long-term memory (recall and upsert), or null when there is none. */
  readonly memory: MemoryPort | null;
  /** The bus: events for viewers, wake-ups of agents' loops (lib/bus/port.ts). */
  readonly bus: Bus;
  /** The MCP servers of the data folder (started per conversation on first use). */
  readonly mcp: McpManager;
  /** The agents' permission tokens (issued at a task, checked at every tool call, revoked at the end). */
  readonly tokens: AgentTokens;
  /** The gateway's last failed call per source (shown in the settings). */
  readonly gatewayErrors: GatewayLastErrors;
  /** The clock shared-context requests are stamped with (never goes back). */
  readonly clock: RequestClock;
  /** Knowledge retrieval over the project folders (their indexes, built and refreshed in the background). */
  readonly knowledge: KnowledgeService;
  /** Memory distillation's queue and progress log (lib/runtime/team/distilled-progress.ts). */
  readonly distill: DistillState;
  /** The workspace tools and checks, bound to the process's protected folders and write queues. */
  readonly workspace: Workspace;
}
