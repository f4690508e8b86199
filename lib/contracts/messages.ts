/**
 * Inter-agent message text (SPEC §2, seed 000 §5–7): what a receiving model sees, persisted as a
 * `user` message. The header and spacing are the seed's exactly, because existing conversations
 * and other tools read them, and because the UI turns them back into cards with
 * {@link parseAgentMessage}. Pure: no I/O.
 *
 * Seed examples (JSON-escaped):
 * `"来自 Team Leader 的任务发布\nid: task_001\n\n\n\n请为项目设计前端配色方案...\n\n"`,
 * `"来自 UI Operator_1 的任务完成汇报\nid: out_uio_001\n\n\n\n我完成了前端配色的设计...\n\n"`.
 */

/** Kind of an inter-agent message: the three kinds of inter-agent message text. */
export type AgentMessageKind = "task" | "message" | "report";

/** The seed's header word for each kind (`来自 {sender} 的{word}`). */
const AGENT_MESSAGE_HEADERS: Readonly<Record<AgentMessageKind, string>> = {
  task: "任务发布",
  message: "消息",
  report: "任务完成汇报",
};

/** A parsed inter-agent message. */
export interface AgentMessage {
  kind: AgentMessageKind;
  /** Display name of the sender (`Team Leader`, `UI Operator_1`). */
  sender: string;
  /** Seed-style id (`task_001`, `msg_tl_001`, `out_uio_001`). */
  id: string;
  body: string;
}

const KIND_BY_HEADER = new Map<string, AgentMessageKind>(
  (Object.entries(AGENT_MESSAGE_HEADERS) as Array<[AgentMessageKind, string]>).map(([kind, word]) => [word, kind]),
);

// The sender is greedy so a name that itself contains " 的消息" still parses: the kind word is
// always the end of the first line.
const HEADER_RE = /^来自 ([^\n]+) 的(任务发布|消息|任务完成汇报)$/;
const ID_PREFIX = "id: ";
/** Anything a reader might treat as a line break; refused in sender and id so parsing is exact. */
const LINE_BREAK = /[\r\n\u2028\u2029]/;
const BODY_SEPARATOR = "\n\n\n\n";
const TRAILER = "\n\n";

/**
 * The text of an inter-agent message in the seed's format:
 * `来自 {sender} 的{header}\nid: {id}\n\n\n\n{body}\n\n`.
 * @throws RangeError when sender or id is empty or spans lines (the text could not be parsed back).
 */
export function formatAgentMessage(kind: AgentMessageKind, sender: string, id: string, body: string): string {
  if (!sender.trim() || LINE_BREAK.test(sender)) throw new RangeError("sender must be one non-empty line");
  if (!id.trim() || LINE_BREAK.test(id)) throw new RangeError("id must be one non-empty line");
  return `来自 ${sender} 的${AGENT_MESSAGE_HEADERS[kind]}\n${ID_PREFIX}${id}${BODY_SEPARATOR}${body}${TRAILER}`;
}

/**
 * Reads text written by {@link formatAgentMessage} (or by the seed's Python implementation).
 * Returns null for any other text, so the UI can fall back to showing it as plain chat.
 * For every valid input, `formatAgentMessage(...parse(text))` equals `text`.
 */
export function parseAgentMessage(text: string): AgentMessage | null {
  const headerEnd = text.indexOf("\n");
  if (headerEnd < 0) return null;
  const header = HEADER_RE.exec(text.slice(0, headerEnd));
  if (!header) return null;
  const sender = header[1] ?? "";
  const kind = KIND_BY_HEADER.get(header[2] ?? "");
  if (!kind || !sender.trim() || LINE_BREAK.test(sender)) return null;

  const idStart = headerEnd + 1;
  if (!text.startsWith(ID_PREFIX, idStart)) return null;
  const idEnd = text.indexOf("\n", idStart);
  if (idEnd < 0) return null;
  const id = text.slice(idStart + ID_PREFIX.length, idEnd);
  if (!id.trim() || LINE_BREAK.test(id)) return null;

  if (!text.startsWith(BODY_SEPARATOR, idEnd)) return null;
  const bodyStart = idEnd + BODY_SEPARATOR.length;
  if (text.length < bodyStart + TRAILER.length || !text.endsWith(TRAILER)) return null;
  return { kind, sender, id, body: text.slice(bodyStart, text.length - TRAILER.length) };
}

/** Kind of a seed-style id. */
export type SeedIdKind = "task" | "message" | "report" | "question";

/** Id prefix per kind: `task_001`, `msg_tl_001`, `out_uio_001`, `ask_uio_001`. */
const SEED_ID_PREFIXES: Readonly<Record<SeedIdKind, string>> = {
  task: "task",
  message: "msg",
  report: "out",
  question: "ask",
};

/** The display name the leader has in inter-agent messages (seed), and as an author on disk. */
export const LEADER_DISPLAY_NAME = "Team Leader";

/** The Team Leader's abbreviation in ids (`msg_tl_001`). */
const LEADER_ABBREV = "tl";

/**
 * Per-conversation counters of seed-style ids (non-negative integers), keyed by id prefix (`task`,
 * `msg_tl`, `out_uio`). The caller persists them (e.g. in the conversation's metadata) so ids stay
 * unique across restarts.
 */
export type SeedCounters = Record<string, number>;

/**
 * Known role abbreviations. Acronyms that the word rule below would also produce are listed so
 * the seed's own examples stay fixed even if the rule changes.
 */
const DEFAULT_ROLE_ABBREVIATIONS: Readonly<Record<string, string>> = {
  "team-leader": LEADER_ABBREV,
  "ui-operator": "uio",
  "full-stack-engineer": "fse",
  "code-reviewer": "cr",
};

/**
 * A role id's abbreviation for seed-style ids: an override if given, else the first letter of each
 * word of the id (split on `-`, `_`, `.`, spaces), keeping words of one or two letters whole because
 * they are usually acronyms (`ui-operator` → `uio`, `full-stack-engineer` → `fse`,
 * `qa-engineer` → `qae`). Only `[a-z0-9]` survive; a role id with none of them gives `ag`.
 */
export function roleAbbreviation(
  roleId: string,
  overrides: Readonly<Record<string, string>> = DEFAULT_ROLE_ABBREVIATIONS,
): string {
  const override = (Object.hasOwn(overrides, roleId) ? overrides[roleId] : undefined);
  if (override !== undefined && /^[a-z0-9]+$/.test(override)) return override;
  const words = roleId
    .toLowerCase()
    .split(/[-_.\s]+/)
    .map((w) => w.replace(/[^a-z0-9]/g, ""))
    .filter(Boolean);
  const abbrev = words.map((w) => (w.length <= 2 ? w : w[0])).join("");
  return abbrev || "ag";
}

/** The number of digits the seed pads counters to; larger numbers simply grow. */
const SEED_ID_DIGITS = 3;

/**
 * The next seed-style id of `kind` and the updated counters (the input is not mutated).
 * `abbrev` is the author's abbreviation: required for reports and questions (`out_uio_001`),
 * defaults to the leader's `tl` for messages, and is not used for tasks (`task_001`).
 * @throws RangeError when `abbrev` is missing for a report/question or is not `[a-z0-9]+`.
 */
export function nextSeedId(
  kind: SeedIdKind,
  counters: Readonly<SeedCounters>,
  abbrev?: string,
): { id: string; counters: SeedCounters } {
  let key: string;
  if (kind === "task") {
    key = SEED_ID_PREFIXES.task;
  } else {
    const who = abbrev ?? (kind === "message" ? LEADER_ABBREV : undefined);
    if (who === undefined) throw new RangeError(`a ${kind} id needs the author's abbreviation`);
    if (!/^[a-z0-9]+$/.test(who)) throw new RangeError(`invalid abbreviation: ${JSON.stringify(who)}`);
    key = `${SEED_ID_PREFIXES[kind]}_${who}`;
  }
  const n = ((Object.hasOwn(counters, key) ? counters[key] : undefined) ?? 0) + 1;
  return { id: `${key}_${String(n).padStart(SEED_ID_DIGITS, "0")}`, counters: { ...counters, [key]: n } };
}

/** A parsed seed-style id. */
export interface SeedId {
  kind: SeedIdKind;
  /** Author abbreviation; null for tasks. */
  abbrev: string | null;
  n: number;
}

const KIND_BY_PREFIX = new Map<string, SeedIdKind>(
  (Object.entries(SEED_ID_PREFIXES) as Array<[SeedIdKind, string]>).map(([kind, prefix]) => [prefix, kind]),
);

/** Reads `task_001` / `msg_tl_001` / `out_uio_001` / `ask_uio_001`; null for anything else. */
export function parseSeedId(id: string): SeedId | null {
  const task = /^task_(\d+)$/.exec(id);
  if (task) return { kind: "task", abbrev: null, n: Number(task[1]) };
  const other = /^(msg|out|ask)_([a-z0-9]+)_(\d+)$/.exec(id);
  if (!other) return null;
  const kind = KIND_BY_PREFIX.get(other[1] ?? "");
  return kind ? { kind, abbrev: other[2] ?? "", n: Number(other[3]) } : null;
}
