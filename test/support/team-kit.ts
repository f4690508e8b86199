/**
 * A conversation's team run built from in-memory parts, for unit tests of the engine (no server,
 * no HTTP, no data folder on disk): the real TeamRun and its loops, tools, mail and effects over
 * the in-memory storage (./memory-storage.ts) and the in-process EventBus, talking to a scripted
 * model (./scripted-model.ts). What cannot be in memory is on disk: the project folder (the
 * engine checks a real folder before every tool) in a temporary folder, and the role library,
 * which reads the product's own roles (agents/*.md, read only). The data folder the engine is
 * given is never created: a test may check that nothing was written there.
 *
 * `deps.storage` is the in-memory storage; `deps.conversations` (the engine's lifecycle of
 * conversations, which a run does not use) is a stand-in that throws on any use. A "process" ({@link TeamKit.start}) is one storage over the kit's
 * backing, one bus, tokens and MCP manager, and one run; a crash is `process.storage.crash()`
 * followed by a new process over the same backing (what was durable is all it finds).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { conversationTopic, EventBus } from "@/lib/bus";
import type { RuntimeEvent } from "@/lib/contracts/events";
import type { AgentMessagesFile, AgentMetadata, ConversationMetadata, LeaderMessagesFile } from "@/lib/contracts/on-disk";
import { TimelineRecordSchema, type TimelineRecord } from "@/lib/contracts/timeline-record";
import { GatewayLastErrors } from "@/lib/gateway";
import { AgentTokens } from "@/lib/governance";
import { McpManager } from "@/lib/mcp";
import { TIMELINE_FILE_NAME } from "@/lib/protocol";
import { deriveCapabilities } from "@/lib/governance/vocabulary";
import { RoleLibrary } from "@/lib/roles/library";
import { TeamRun } from "@/lib/runtime/team-run";
import { limitsFromEnv, type RuntimeLimits } from "@/lib/runtime/team/config";
import type { EngineDeps } from "@/lib/runtime/team/deps";
import type { ToolProviders } from "@/lib/runtime/team/tool-kit";
import { builtInToolProviders } from "@/lib/runtime/tool-providers";
import { DistillState } from "@/lib/runtime/team/distilled-progress";
import { JOURNAL_FILE_NAME } from "@/lib/store/action-journal";
import type { ConversationLifecycle } from "@/lib/runtime/team/ports";
import { FileQueues } from "@/lib/store/atomic";
import { ProtectedFolders, Workspace } from "@/lib/workspace";
import { newRoleLibrary } from "@/test/helpers/role-library";
import { MemoryBacking, MemoryStorage } from "./memory-storage";
import { ScriptedModel, type Script } from "./scripted-model";
import type { ChatModel } from "@/lib/models/types";
import { RequestClock } from "@/lib/shared-context/clock";
import { KnowledgeService } from "@/lib/knowledge/service";
import { DEFAULT_KNOWLEDGE_LIMITS } from "@/lib/knowledge/config";

const ROLES_DIR = fileURLToPath(new URL("../../agents", import.meta.url));

/**
 * The product roles, where the next lookup of one role can be held for good: a process that dies
 * while it waits there (the leader's `create_sub_agent` looks its role up after its answer and the
 * journal's `started` line were made, before the agent exists).
 */
class HeldRoles extends RoleLibrary {
  #held: { id: string; reached: () => void } | null = null;

  /** The next lookup of role `id` never returns; resolves once it is asked for. */
  holdNext(id: string): Promise<void> {
    return new Promise((resolve) => (this.#held = { id, reached: resolve }));
  }

  override get(id: string): ReturnType<RoleLibrary["get"]> {
    const held = this.#held;
    if (held?.id !== id) return super.get(id);
    this.#held = null;
    held.reached();
    return new Promise(() => undefined);
  }
}

/** What the tests of one file share: a project folder, a data folder path, the product roles. */
export interface TeamEnvironment {
  /** An empty temporary folder: the conversations' project folder. */
  readonly project: string;
  /** The engine's data folder: a path beside the project that nobody creates. */
  readonly dataRoot: string;
  /** The product roles (agents/*.md of the repository). */
  readonly roles: RoleLibrary;
  /** Another library of the product roles, one whose lookups a test can hold ({@link HeldRoles}). */
  heldRoles(): HeldRoles;
  /** Closes the role libraries and removes the temporary folder. */
  close(): void;
}

export function teamEnvironment(): TeamEnvironment {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "astrion-unit-team-"));
  const project = path.join(tmp, "project");
  mkdirSync(project);
  const libraries: RoleLibrary[] = [];
  const track = <L extends RoleLibrary>(library: L): L => (libraries.push(library), library);
  return {
    project,
    dataRoot: path.join(tmp, "data"),
    roles: track(newRoleLibrary(ROLES_DIR)),
    heldRoles: () => track(new HeldRoles(ROLES_DIR, { deriveCapabilities, queues: new FileQueues() })),
    close() {
      for (const l of libraries) l.close();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** The conversations' lifecycle is the engine's (lib/runtime/engine.ts), which a kit does not run: any use of it is a bug. */
const UNUSED_LIFECYCLE = new Proxy({} as ConversationLifecycle, {
  get(_target, key) {
    if (typeof key === "symbol") return undefined;
    throw new Error(`the run used deps.conversations.${key}, which only the engine uses`);
  },
});

/** One "process" of the engine: a storage over the kit's backing, a bus, and a run. */
export interface TeamProcess {
  readonly storage: MemoryStorage;
  readonly bus: EventBus;
  readonly tokens: AgentTokens;
  readonly run: TeamRun;
  /** Every event published on the conversation's topic, in order. */
  readonly events: RuntimeEvent[];
  /** The first event (published already or to come) for which `test` holds. */
  when(test: (e: RuntimeEvent) => boolean): Promise<RuntimeEvent>;
}

/** Limits for tests: the defaults, no batching pause before a woken leader's call. */
function testLimits(overrides: Partial<RuntimeLimits> = {}): RuntimeLimits {
  return { ...limitsFromEnv({}), leaderBatchMs: 0, ...overrides };
}

/** One conversation's backing, its scripted model, and the processes that run it. */
export class TeamKit {
  readonly backing = new MemoryBacking();
  readonly model: ScriptedModel;
  readonly convId: string;
  readonly limits: RuntimeLimits;
  readonly #env: TeamEnvironment;
  #current: TeamProcess | null = null;

  readonly #tools: ToolProviders;

  /** A model other than the scripted one (the built-in offline model), given every call; the script is then unused. */
  readonly #chatModel: ChatModel | undefined;

  /**
   * `tools`: the tool providers the run is given (default: the built-in ones, as the composition
   * root gives them); `chatModel`: the model every call goes to instead of the script;
   * `project`: the conversation's project folder (default the environment's).
   */
  constructor(env: TeamEnvironment, script: Script, options: { title?: string; limits?: Partial<RuntimeLimits>; tools?: ToolProviders; chatModel?: ChatModel; project?: string } = {}) {
    this.#env = env;
    this.#tools = options.tools ?? builtInToolProviders();
    this.model = new ScriptedModel(script);
    this.#chatModel = options.chatModel;
    this.limits = testLimits(options.limits);
    this.convId = this.backing.seed({ title: options.title ?? "unit", model_key: options.chatModel?.key ?? this.model.key, run_mode: "fast", project_path: options.project ?? env.project });
  }

  /** The process started last (a script reads the bus of the process it serves). */
  get process(): TeamProcess {
    if (!this.#current) throw new Error("no process started yet");
    return this.#current;
  }

  /** A new process over the backing (after a crash: what was durable). */
  start(roles: RoleLibrary = this.#env.roles): TeamProcess {
    const storage = new MemoryStorage(this.backing);
    const bus = new EventBus();
    const events: RuntimeEvent[] = [];
    const waiters: Array<{ test: (e: RuntimeEvent) => boolean; resolve: (e: RuntimeEvent) => void }> = [];
    bus.subscribe(conversationTopic(this.convId), ({ event }) => {
      events.push(event);
      for (const w of waiters.filter((x) => x.test(event))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(event);
      }
    });
    const tokens = new AgentTokens();
    const model = this.#chatModel ?? this.model;
    // What the composition root makes once per process.
    const queues = new FileQueues();
    const workspace = new Workspace({ protectedFolders: new ProtectedFolders(), queues });
    const deps: EngineDeps = {
      root: this.#env.dataRoot,
      storage,
      conversations: UNUSED_LIFECYCLE,
      roles,
      models: { modelFor: async () => model, embedderFor: async () => null, subscribeHealth: () => () => undefined },
      memory: null,
      bus,
      mcp: new McpManager(),
      tokens,
      gatewayErrors: new GatewayLastErrors(),
      clock: new RequestClock(),
      knowledge: new KnowledgeService(this.#env.dataRoot, DEFAULT_KNOWLEDGE_LIMITS, { queues, workspace }),
      distill: new DistillState(this.#env.dataRoot, queues),
      workspace,
    };
    const run = new TeamRun(deps, this.convId, this.limits, this.#tools, { storage, bus });
    const when = (test: (e: RuntimeEvent) => boolean) => {
      const seen = events.find(test);
      return seen ? Promise.resolve(seen) : new Promise<RuntimeEvent>((resolve) => waiters.push({ test, resolve }));
    };
    this.#current = { storage, bus, tokens, run, events, when };
    return this.#current;
  }
}

// ---------------------------------------------------------------- reading what a process holds

/** The conversation's files as the storage holds them now. */
export async function filesOf(p: TeamProcess, convId: string): Promise<{ conversation: ConversationMetadata; leader: LeaderMessagesFile; agents: AgentMetadata[] }> {
  const files = p.storage.conversations;
  return { conversation: await files.get(convId), leader: await files.readLeaderMessages(convId), agents: (await files.listAgents(convId)).agents };
}

export function agentMessages(p: TeamProcess, convId: string, agentId: number): Promise<AgentMessagesFile> {
  return p.storage.conversations.readAgentMessages(convId, agentId);
}

/** The durable timeline, each record checked against the schema. */
export function timelineOf(p: TeamProcess, convId: string): TimelineRecord[] {
  return p.storage.durableLines(convId, TIMELINE_FILE_NAME).map((line) => TimelineRecordSchema.parse(JSON.parse(line)));
}

/** The durable action journal's lines. */
export function journalOf(p: TeamProcess, convId: string): Array<{ key: string; status: string; result?: string }> {
  return p.storage.durableLines(convId, JOURNAL_FILE_NAME).map((line) => JSON.parse(line) as { key: string; status: string; result?: string });
}

/** An event about agent `agentId` reaching `status` (the bus publishes it once durable). */
export function agentReached(agentId: number, status: string): (e: RuntimeEvent) => boolean {
  return (e) => e.type === "agent" && e.agent.metadata.agent_id === agentId && e.agent.metadata.status === status;
}

/** The idle run's changes all durable and their events on the bus. */
export async function settled(p: TeamProcess): Promise<void> {
  await p.run.idle();
  await p.run.durable();
}
