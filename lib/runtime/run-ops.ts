import "server-only";
/**
 * The commands a person's request makes of a conversation's run, one entry each: the name (`op`),
 * the zod schema of its arguments and what it does with the run. Routes name a command and its
 * arguments (lib/runtime/run-commands.ts runs it, here or on the instance that holds the run), so
 * a command can travel as JSON to another instance and run there exactly as here. Adding an op is
 * one entry in {@link RUN_OPS}; its result must be JSON (it may come back over the wire).
 */
import { z } from "zod";
import { AnswerBodySchema, ApprovalBodySchema, ModelKeySchema, PostMessageBodySchema, RetryBodySchema } from "@/lib/contracts/http";
import { AgentIdSchema } from "@/lib/contracts/on-disk";
import { speakerName, type Author } from "@/lib/contracts/people";
import { InterventionActionBodySchema, InterventionStrategySchema } from "@/lib/contracts/interventions";
import { ValidationError } from "@/lib/contracts/errors";
import { DecisionBodySchema, WriteBodySchema } from "@/lib/shared-context/schema";
import type { TeamRun } from "./team-run";

/** One op: its arguments' schema and what it does with the run, for whom. */
interface RunOp<A extends z.ZodType, R> {
  args: A;
  /** Whether it only reads (still run where the run is: a snapshot is the holder's memory). */
  reads?: boolean;
  run(run: TeamRun, args: z.output<A>, author: Author | undefined): Promise<R>;
}

function op<A extends z.ZodType, R>(definition: RunOp<A, R>): RunOp<A, R> {
  return definition;
}

const agent = { agent_id: AgentIdSchema };

/** When a person's shared-context request reached the server (its RequestClock): the later-wins rule compares it, wherever the request is run. */
const requested = { requested_at: z.iso.datetime() };

/** Who a person's intervention is by: routes always say; a command without an author is refused. */
function personOf(author: Author | undefined): Author {
  if (!author) throw new ValidationError("A person's message or intervention needs its author.", [{ path: "author", message: "missing" }]);
  return author;
}

/** Every command of a run, by name (see the file's header). */
export const RUN_OPS = {
  /** A person's message to the Team Leader. */
  leader_message: op({ args: PostMessageBodySchema.pick({ content: true, strategy: true }), run: (run, a, author) => run.postUserMessage(a.content, author, a.strategy ?? "steer") }),
  /** A person's message to one sub-agent (while a run is going, an intervention by its strategy). */
  agent_message: op({
    args: PostMessageBodySchema.pick({ content: true }).extend({ ...agent, strategy: InterventionStrategySchema.optional() }),
    run: (run, a, author) => run.personToAgent(a.agent_id, a.content, personOf(author), a.strategy ?? "steer"),
  }),
  /** The queued messages, and whether a run is going (issue 32). */
  interventions: op({ args: z.object({}), reads: true, run: async (run) => ({ queued: await run.queued(), running: await run.isGoing() }) }),
  /** Withdraw a queued message or an agent's task, or reorder the queue; answers the queue as it is afterwards. */
  intervene: op({
    args: InterventionActionBodySchema,
    run: async (run, a, author) => {
      const who = personOf(author);
      if (a.action === "withdraw_queued") await run.withdrawQueued(a.queue_id, who);
      else if (a.action === "reorder") await run.reorderQueued(a.order, who);
      else await run.withdrawTask(a.agent_id, who);
      return { queued: await run.queued(), running: await run.isGoing() };
    },
  }),
  /** A person answers a sub-agent's pending question. */
  answer: op({
    args: AnswerBodySchema.pick({ question_id: true, answer: true }).extend(agent),
    run: async (run, a, author) => {
      await run.agentDetail(a.agent_id);
      await run.answerQuestion(a.question_id, a.answer, author ? speakerName(author) : "user", a.agent_id, author);
      return { answered: true as const, question_id: a.question_id };
    },
  }),
  /** A person approves or refuses a sub-agent's tool call. */
  approval: op({
    // An intersection keeps the body's own rules (a refined object cannot be picked from); its `author` is ignored, as on the route.
    args: ApprovalBodySchema.and(z.object(agent)),
    run: async (run, a, author) => {
      await run.agentDetail(a.agent_id);
      const decision = { tool_call_id: a.tool_call_id, decision: a.decision, reason: a.reason, always: a.always, pattern: a.pattern };
      return { decided: true as const, ...(await run.decideApproval(a.agent_id, { ...decision, by: author ? speakerName(author) : "user", author })) };
    },
  }),
  /** Stops the whole conversation. */
  stop: op({
    args: z.object({}),
    run: async (run, _a, author) => {
      await run.stop(author);
      return { stopped: true as const };
    },
  }),
  /** Retries the work that failed (the leader's, or one idle agent's). */
  retry: op({ args: RetryBodySchema, run: (run, a) => run.retry(a.agent_id) }),
  /** Terminates one sub-agent (a person's decision). */
  terminate_agent: op({
    args: z.object(agent),
    run: async (run, a, author) => {
      await run.agentDetail(a.agent_id);
      await run.terminateAgent(a.agent_id, "terminated by a person", "person", author);
      return { terminated: a.agent_id };
    },
  }),
  /** A person changes the conversation's model (a registered key, checked by the route); the timeline records it. */
  change_model: op({ args: z.object({ model_key: ModelKeySchema }), run: (run, a, author) => run.changeModel(a.model_key, author) }),
  /** The run's full state (the first SSE event, the agents list). */
  snapshot: op({ args: z.object({}), reads: true, run: (run) => run.snapshot() }),
  /** The conversation's shared context: entries, writes waiting for a person, recent resolutions. */
  shared_context: op({ args: z.object({}), reads: true, run: (run) => run.sharedContext.read() }),
  /** A person writes a key of the shared context, arbitrated like any write (a person ranks like the leader). */
  shared_context_write: op({
    // An intersection keeps the body's own rule (an overwrite names the version it read).
    args: WriteBodySchema.and(z.object(requested)),
    run: (run, a, author) => run.sharedContext.write(a, new Date(a.requested_at), author),
  }),
  /** A person decides a shared-context write that waits for one: keep the current value or take the proposed one. */
  shared_context_decide: op({ args: DecisionBodySchema.extend(requested), run: (run, a, author) => run.sharedContext.decide(a, new Date(a.requested_at), author) }),
  /** One sub-agent with its whole conversation. */
  agent_detail: op({ args: z.object(agent), reads: true, run: (run, a) => run.agentDetail(a.agent_id) }),
};

/** The name of a command. */
export type RunOpName = keyof typeof RUN_OPS;

/** A command as a route makes it: the op, its arguments, and who asks (the signed-in person; none for the app itself). */
export type RunCommand<O extends RunOpName = RunOpName> = O extends RunOpName ? { op: O; args: z.input<(typeof RUN_OPS)[O]["args"]>; author?: Author } : never;

/** What a command answers. */
export type RunResult<O extends RunOpName> = Awaited<ReturnType<(typeof RUN_OPS)[O]["run"]>>;
