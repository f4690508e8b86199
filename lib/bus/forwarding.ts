/**
 * The forwarding port (issue 31): how a command a person sent to one instance reaches the
 * instance that holds the conversation's run (its lease), and how the answer comes back. The
 * engine's command path (lib/runtime/run-commands.ts) is its one user: it tries a command here,
 * and when another instance holds the run it sends the command there through this port, which
 * carries JSON both ways and knows nothing of what a command means. Types only; the Redis
 * implementation is lib/bus-redis/forwarder.ts, the in-process one (several instances in one
 * process, for tests and the conformance suite) ./forwarding-hub.ts. The data folder has none:
 * one process holds every run.
 */

/** A command on its way to the holder: the conversation and the command as JSON (the receiver checks it). */
export interface ForwardRequest {
  conversation_id: string;
  command: unknown;
}

/** The failure a holder answers: an API error body (`code` decides the status, as on any route). */
export interface ForwardedProblem {
  code: string;
  message: string;
  details?: unknown;
  /** The error's kind (`LeaseHeldError`, `NotFoundError`…), so the sender throws the same. */
  kind?: string;
}

/** What the holder answers: the command's result (JSON), or its error. */
export type ForwardReply = { ok: true; value: unknown } | { ok: false; error: ForwardedProblem };

/**
 * What became of a forwarded command: answered by the holder, or not answered. `no_listener`:
 * nobody serves that instance's commands (it is gone, or was never one that serves); `timeout`:
 * it was sent but no answer came in time (the holder is paused, overloaded or dying; it may
 * still run the command, see {@link ServedRequest.expired}); `unreachable`: the channel itself
 * (Redis) could not be used.
 */
export type ForwardOutcome = { kind: "answered"; reply: ForwardReply } | { kind: "unanswered"; reason: "no_listener" | "timeout" | "unreachable" };

/** A request as the holder receives it. */
export interface ServedRequest extends ForwardRequest {
  /** The instance that sent it. */
  from: string;
  /**
   * Whether the sender has given up waiting by now (its timeout passed since the request
   * arrived): a command not begun by then is not run, so a sender that retries elsewhere after
   * its timeout does not see it run twice.
   */
  expired(): boolean;
}

/** Serves the commands sent to this instance; resolves with the reply (never rejects: an error is a reply). */
export type ForwardHandler = (request: ServedRequest) => Promise<ForwardReply>;

/**
 * The port. Guarantees (test/conformance/command-forwarding.ts): a request reaches the handler
 * of the instance named `owner` only, each exactly once, and requests from one sender reach it in
 * the order they were sent; the reply reaches the sender of that request only; an instance that
 * serves nothing (or is gone) is told as `no_listener` or `timeout`, never left waiting past
 * `timeoutMs`.
 */
export interface CommandForwarder {
  /** This instance's name: the owner its leases carry, where requests for it are addressed. */
  readonly self: string;
  /** Sends `request` to `owner` and waits at most `timeoutMs` for its reply. Never rejects. */
  send(owner: string, request: ForwardRequest, timeoutMs: number): Promise<ForwardOutcome>;
  /**
   * Serves the requests addressed to {@link self} with `handler` (one handler at a time; a second
   * call replaces the first). Resolves once requests are heard; the returned function stops.
   */
  serve(handler: ForwardHandler): Promise<() => void>;
  /** Stops serving and sending; sends still waiting are answered `unreachable`. */
  close(): Promise<void>;
}
