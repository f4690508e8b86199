/**
 * Failpoints: named places in the runtime where a fault can be injected from outside, so tests
 * of the real built server can prove that a failure at any of them is handled (in the manner of
 * FoundationDB's BUGGIFY or TiKV's fail-rs). Off unless `ASTRION_FAILPOINTS` is set, and then a
 * point costs one Set lookup.
 *
 * `ASTRION_FAILPOINTS` is a comma-separated list of rules `point[@marker]`. A point name ending in
 * `*` matches every point with that prefix (`tool.*`). With `@marker`, the point fires only when
 * the text it is given (a tool call's arguments, a model's answer) contains the marker, so one
 * server can run faulty and healthy calls side by side. The points:
 * - `tool.<name>`: a sub-agent's or the leader's tool `<name>`, just before it runs (text: the
 *   call's arguments);
 * - `agent.step`: a sub-agent's loop, after its model answered and before its tools run (text:
 *   the answer's content and tool calls);
 * - `leader.step`: the leader's loop, at the same place.
 * Pure apart from reading the environment once.
 */

/** The error a failpoint throws: an ordinary Error, so it takes the path any unexpected fault would. */
class InjectedFault extends Error {
  constructor(point: string) {
    super(`injected fault at ${point}`);
    this.name = "InjectedFault";
  }
}

interface Rule {
  name: string;
  prefix: boolean;
  marker: string | null;
}

/** Parses an `ASTRION_FAILPOINTS` value. */
export function parseFailpoints(raw: string | undefined): Rule[] {
  const rules: Rule[] = [];
  for (const item of (raw ?? "").split(",")) {
    const text = item.trim();
    if (!text) continue;
    const at = text.indexOf("@");
    const point = at === -1 ? text : text.slice(0, at);
    const marker = at === -1 ? null : text.slice(at + 1) || null;
    const prefix = point.endsWith("*");
    rules.push({ name: prefix ? point.slice(0, -1) : point, prefix, marker });
  }
  return rules;
}

let configured: Rule[] | null = null;

/** True when `point` fires for `text` under `rules` (by default those of `ASTRION_FAILPOINTS`). */
export function isArmed(point: string, text = "", rules: Rule[] = (configured ??= parseFailpoints(process.env.ASTRION_FAILPOINTS))): boolean {
  return rules.some((r) => (r.prefix ? point.startsWith(r.name) : point === r.name) && (r.marker === null || text.includes(r.marker)));
}

/**
 * Throws {@link InjectedFault} when `point` is armed for `text`.
 * @throws InjectedFault
 */
export function failpoint(point: string, text = ""): void {
  if (configured === null) configured = parseFailpoints(process.env.ASTRION_FAILPOINTS);
  if (configured.length && isArmed(point, text, configured)) throw new InjectedFault(point);
}
