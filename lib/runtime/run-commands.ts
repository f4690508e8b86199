import "server-only";
/**
 * The one path of a person's commands to a conversation's run (./run-ops.ts names them): the
 * routes hand a command to {@link RunCommands.run}, which runs it here through the engine
 * (`withRun`, so what it changed is durable before it answers). When another instance holds the
 * run's lease (the storage refuses with `LeaseHeldError`, which names the holder), the command is
 * sent there through the forwarding port (lib/bus/forwarding.ts) and that instance's answer, or
 * its error with its status and body, is this request's. A holder that does not answer (dead,
 * paused) is waited for until its lease expires, and the command then runs here (the lease is
 * free); past the wait, a 503 says so. The holder runs what it is sent through the same function
 * ({@link RunCommands.serve}), one command of a conversation at a time in the order they arrived;
 * who asks travels with the command, and what they may do was checked by the route that got it.
 */
import { AstrionError, STATUS_BY_CODE, ValidationError, zodIssues, type ErrorCode } from "@/lib/contracts/errors";
import { AuthorSchema, type Author } from "@/lib/contracts/people";
import type { CommandForwarder, ForwardedProblem, ForwardReply, ServedRequest } from "@/lib/bus/forwarding";
import type { Engine } from "./engine";
import type { TeamRun } from "./team-run";
import { RUN_OPS, type RunCommand, type RunOpName, type RunResult } from "./run-ops";

/** How forwarding waits. */
export interface RunCommandOptions {
  /** How long a holder has to answer a forwarded command (ms; default 5 s). */
  answerMs?: number;
  /** How long, in all, a command may wait for a silent holder's lease to expire before the 503 (ms; default 15 s). */
  takeoverWaitMs?: number;
  /** Where faults are told (default console.error). */
  log?: (message: string) => void;
}

/** The 503 of a command whose run's instance did not answer; `details.reason` lets a page word it. */
class HolderUnansweredError extends AstrionError {
  static override readonly kind: string = "HolderUnansweredError";
  constructor(convId: string, owner: string) {
    super("unavailable", "The instance running this conversation did not answer; try again.", { id: convId, owner, reason: "holder_unanswered" });
  }
}

/** A holder named by a refusal of the storage: `LeaseHeldError` (lib/pg/errors.ts; matched by name, the engine does not import lib/pg). */
function leaseHolderOf(error: unknown): { owner: string; expiresAt: number } | null {
  if (!(error instanceof AstrionError) || error.name !== "LeaseHeldError") return null;
  const details = error.details as { owner?: unknown; expires_at?: unknown } | undefined;
  if (typeof details?.owner !== "string") return null;
  const expiresAt = typeof details.expires_at === "string" ? Date.parse(details.expires_at) : Number.NaN;
  return { owner: details.owner, expiresAt: Number.isFinite(expiresAt) ? expiresAt : Date.now() };
}

/** The error a holder answered, as this instance throws it (same code, so the same status; same message, details and kind). */
function problemError(problem: ForwardedProblem): AstrionError {
  const error = new AstrionError(Object.hasOwn(STATUS_BY_CODE, problem.code) ? (problem.code as ErrorCode) : "internal", problem.message, problem.details);
  if (problem.kind) error.name = problem.kind;
  return error;
}

/** A command's failure as a reply: an AstrionError as its API body; anything else logged, a bare 500. */
function problemOf(error: unknown, log: (message: string) => void): ForwardedProblem {
  if (error instanceof AstrionError) return { code: error.code, message: error.message, kind: error.name, ...(error.details === undefined || error.status >= 500 ? {} : { details: error.details }) };
  log(`[astrion] a forwarded command failed: ${(error as Error)?.stack ?? String(error)}`);
  return { code: "internal", message: "Something went wrong on the server; see its log." };
}

/** At most this many holders in a row (the lease moved on while a command was on its way). */
const MAX_HOPS = 3;

/** The command path of one instance; see the file's header. */
export class RunCommands {
  readonly #engine: Engine;
  readonly #forwarder: CommandForwarder | null;
  readonly #answerMs: number;
  readonly #takeoverWaitMs: number;
  readonly #log: (message: string) => void;
  /** The last command served per conversation: the next one starts after it. */
  readonly #served = new Map<string, Promise<unknown>>();

  constructor(engine: Engine, forwarder: CommandForwarder | null, options: RunCommandOptions = {}) {
    this.#engine = engine;
    this.#forwarder = forwarder;
    this.#answerMs = options.answerMs ?? 5_000;
    this.#takeoverWaitMs = options.takeoverWaitMs ?? 15_000;
    this.#log = options.log ?? ((message) => console.error(message));
  }

  /** Parses a command (its args by its op's schema, its author) and runs it here. @throws ValidationError for a bad command, the op's errors, LeaseHeldError. */
  async local<O extends RunOpName>(convId: string, command: RunCommand<O>): Promise<RunResult<O>> {
    const { op, args, author } = parseCommand(command);
    // The table's entries differ in their types; parsed by the op's own schema, args fit its run.
    const definition = RUN_OPS[op] as unknown as { run(run: TeamRun, a: unknown, author: Author | undefined): Promise<unknown> };
    return (await this.#engine.withRun(convId, (run) => definition.run(run, args, author))) as RunResult<O>;
  }

  /** Runs `command` on the run of `convId`, wherever it is leased (see the file's header). */
  async run<O extends RunOpName>(convId: string, command: RunCommand<O>): Promise<RunResult<O>> {
    const deadline = Date.now() + this.#takeoverWaitMs;
    let hops = 0;
    for (;;) {
      let holder: { owner: string; expiresAt: number } | null;
      try {
        return await this.local(convId, command);
      } catch (error) {
        holder = this.#forwarder ? leaseHolderOf(error) : null;
        if (!holder || holder.owner === this.#forwarder!.self) throw error;
      }
      const outcome = await this.#forwarder!.send(holder.owner, { conversation_id: convId, command }, this.#answerMs);
      if (outcome.kind === "answered") {
        if (outcome.reply.ok) return outcome.reply.value as RunResult<O>;
        const refused = problemError(outcome.reply.error);
        // The holder let the run go and a third instance took it: follow it, a few hops at most.
        if (!leaseHolderOf(refused) || ++hops >= MAX_HOPS) throw refused;
        continue;
      }
      // Not answered: the holder is gone or stuck. Once its lease expires the run can be taken here.
      const wait = Math.max(50, holder.expiresAt - Date.now() + 50);
      if (Date.now() + wait > deadline) {
        this.#log(`[astrion] ${convId}: instance ${holder.owner} holds its run and did not answer a forwarded command (${outcome.reason})`);
        throw new HolderUnansweredError(convId, holder.owner);
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /**
   * Runs `fn` to open a viewer's stream of `convId`, with where its snapshots come from: this
   * instance's run (held meanwhile, as `withRun` holds it), or, when another instance holds the
   * run, the holder's snapshot through {@link run} (the conversation held here for the stream,
   * with no run: the events come from the holder through the bus).
   */
  async view<T>(convId: string, fn: (snapshot: () => Promise<RunResult<"snapshot">>) => Promise<T>): Promise<T> {
    try {
      return await this.#engine.withRun(convId, (run) => fn(() => run.snapshot()));
    } catch (error) {
      const holder = this.#forwarder ? leaseHolderOf(error) : null;
      if (!holder || holder.owner === this.#forwarder!.self) throw error;
    }
    return this.#engine.withConversation(convId, () => fn(() => this.run(convId, { op: "snapshot", args: {} })));
  }

  /** Serves the commands other instances forward here; resolves once they are heard. No-op without a forwarder. */
  async serve(): Promise<() => void> {
    if (!this.#forwarder) return () => undefined;
    return this.#forwarder.serve((request) => this.#serveOne(request));
  }

  #serveOne(request: ServedRequest): Promise<ForwardReply> {
    const convId = request.conversation_id;
    const before = this.#served.get(convId) ?? Promise.resolve();
    const reply = before.then(async (): Promise<ForwardReply> => {
      // The sender gave up meanwhile (and may run it elsewhere): it is not run here as well.
      if (request.expired()) return { ok: false, error: problemOf(new HolderUnansweredError(convId, this.#forwarder!.self), this.#log) };
      try {
        // Here only: a command is never sent on from a holder, so two instances cannot bounce it.
        return { ok: true, value: await this.local(convId, request.command as RunCommand) };
      } catch (error) {
        return { ok: false, error: problemOf(error, this.#log) };
      }
    });
    this.#served.set(convId, reply);
    void reply.then(() => {
      if (this.#served.get(convId) === reply) this.#served.delete(convId);
    });
    return reply;
  }
}

/** A command checked: an op that exists, its args by its schema, an author of the right shape. */
function parseCommand(command: unknown): { op: RunOpName; args: unknown; author: Author | undefined } {
  const c = (command ?? {}) as { op?: unknown; args?: unknown; author?: unknown };
  if (typeof c.op !== "string" || !Object.hasOwn(RUN_OPS, c.op)) throw new AstrionError("bad_request", `Unknown command ${String(c.op)}`);
  const op = c.op as RunOpName;
  const parsed = RUN_OPS[op].args.safeParse(c.args ?? {});
  if (!parsed.success) throw new ValidationError(`The command ${op} is not valid`, zodIssues(parsed.error));
  if (c.author === undefined) return { op, args: parsed.data, author: undefined };
  const author = AuthorSchema.safeParse(c.author);
  if (!author.success) throw new ValidationError(`The command ${op} names no valid author`, zodIssues(author.error));
  return { op, args: parsed.data, author: author.data };
}
