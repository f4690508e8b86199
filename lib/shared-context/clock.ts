/**
 * The time to stamp a shared-context request with, taken as it reaches the server (an HTTP
 * handler's first line, a tool call's start) — before it waits for the file's lock, so the
 * later-wins rule orders requests by when they were made, not by when they got their turn. Never
 * earlier than the previous stamp of this clock, so a wall clock set back (NTP) cannot make a newer
 * request look older. One per process, made by the composition root (routes use `app.clock`, the
 * engine `deps.clock`).
 */
export class RequestClock {
  #last = 0;
  readonly #wall: () => number;

  constructor(wall: () => number = Date.now) {
    this.#wall = wall;
  }

  /** Now, never before the previous answer. */
  now(): Date {
    this.#last = Math.max(this.#wall(), this.#last);
    return new Date(this.#last);
  }
}
