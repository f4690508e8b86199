/**
 * Filters as tokens. Each indexed message carries, in the FTS5 `tags` column, one token per filter
 * value (its conversation's status, its author, the author's role and model, its chat role and
 * month), so FTS5 intersects a filter with the words inside the index instead of SQL checking
 * every match afterwards. The tokens are made here from the values, hex-encoded so any role id or
 * model key becomes letters and digits; a person's text never reaches this column. Pure.
 */
import type { SearchQuery } from "@/lib/contracts/search";
import { lowerBound, upperBound } from "@/lib/contracts/search";

/** The filter values of one message. */
export interface MessageTags {
  status: string;
  /** null: the Team Leader. */
  agentId: number | null;
  roleId: string | null;
  modelKey: string;
  messageRole: string;
  /** Local time `YYYY-MM-DDTHH:MM:SS`. */
  createdAt: string;
}

function hex(value: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(value)) out += byte.toString(16).padStart(2, "0");
  return out;
}

const statusTag = (status: string) => `s${hex(status)}`;
const agentTag = (agentId: number | null) => `a${agentId ?? 0}`;
const roleTag = (roleId: string) => `k${hex(roleId)}`;
const modelTag = (model: string) => `m${hex(model)}`;
const messageRoleTag = (role: string) => `r${hex(role)}`;
const monthTag = (yyyymm: string) => `d${yyyymm}`;

function monthOf(localTime: string): string | null {
  const m = /^(\d{4})-(\d{2})/.exec(localTime);
  return m ? `${m[1]}${m[2]}` : null;
}

/** The `tags` column of a message. */
export function tagsOf(t: MessageTags): string {
  const tags = [statusTag(t.status), agentTag(t.agentId), modelTag(t.modelKey), messageRoleTag(t.messageRole)];
  if (t.roleId) tags.push(roleTag(t.roleId));
  const month = monthOf(t.createdAt);
  if (month) tags.push(monthTag(month));
  return tags.join(" ");
}

/**
 * A date range spans at most this many months for the month tokens to be used; a wider one is
 * filtered by SQL alone (an OR of many months' token lists costs FTS5 more than it saves).
 */
const MAX_MONTHS = 3;

function monthsBetween(from: string, to: string): string[] | null {
  let y = Number(from.slice(0, 4));
  let m = Number(from.slice(5, 7));
  const endY = Number(to.slice(0, 4));
  const endM = Number(to.slice(5, 7));
  const out: string[] = [];
  while (y < endY || (y === endY && m <= endM)) {
    out.push(monthTag(`${y}${String(m).padStart(2, "0")}`));
    if (out.length > MAX_MONTHS) return null;
    m++;
    if (m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
}

/** The tag groups a query's filters require (each group: any of its tags). */
export function filterTagGroups(q: Pick<SearchQuery, "status" | "agent" | "role" | "model" | "message_role" | "from" | "to">): string[][] {
  const groups: string[][] = [];
  if (q.status && q.status !== "all") groups.push([statusTag(q.status)]);
  if (q.agent !== undefined) groups.push([agentTag(q.agent === "leader" ? null : q.agent)]);
  if (q.role) groups.push([roleTag(q.role)]);
  if (q.model) groups.push([modelTag(q.model)]);
  if (q.message_role) groups.push([messageRoleTag(q.message_role)]);
  if (q.from && q.to) {
    const months = monthsBetween(lowerBound(q.from), upperBound(q.to));
    if (months) groups.push(months);
  }
  return groups;
}
