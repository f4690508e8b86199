/** How the timeline names lanes, parties, types and statuses in the reader's language. Pure. */
import type { TranslateFn } from "@/lib/i18n";
import { agentIdOfParty, ALL_PARTY, LEADER_PARTY, SYSTEM_PARTY, USER_PARTY, type EnvelopeType } from "@/lib/contracts/envelope";
import { TIMELINE_STATUSES } from "@/lib/contracts/timeline-record";
import type { Lane } from "./timeline-model";

/** The name of a lane: the fixed parties translated, sub-agents by display name. */
export function laneName(lane: Lane, t: TranslateFn): string {
  switch (lane.kind) {
    case "user":
      return t("timeline.party.user");
    case "leader":
      return t("timeline.party.leader");
    case "system":
      return t("timeline.party.system");
    case "agent":
      return lane.name ?? t("timeline.party.agent", { id: lane.agentId ?? "?" });
    case "other":
      return lane.name ?? lane.party;
  }
}

/** The name of any party address, using the lanes for sub-agent names. */
export function partyName(party: string, lanes: readonly Lane[], t: TranslateFn): string {
  const lane = lanes.find((l) => l.party === party);
  if (lane) return laneName(lane, t);
  if (party === ALL_PARTY) return t("timeline.party.all");
  if (party === USER_PARTY) return t("timeline.party.user");
  if (party === LEADER_PARTY) return t("timeline.party.leader");
  if (party === SYSTEM_PARTY) return t("timeline.party.system");
  const id = agentIdOfParty(party);
  return id === null ? party : t("timeline.party.agent", { id });
}

/** An envelope type in the reader's language. */
export function typeLabel(type: EnvelopeType, t: TranslateFn): string {
  return t(`timeline.type.${type}`);
}

const KNOWN_STATUSES = TIMELINE_STATUSES;

/** A status in the reader's language; statuses this view does not know are shown as written. */
export function statusLabel(status: string, t: TranslateFn): string {
  const known = KNOWN_STATUSES.find((s) => s === status);
  return known ? t(`timeline.status.${known}`) : status;
}

/** `HH:MM:SS.mmm` in local time, the resolution at which agents interleave. */
export function clockTime(iso: string, locale: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const hms = date.toLocaleTimeString(locale, { hour12: false, hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return `${hms}.${String(date.getMilliseconds()).padStart(3, "0")}`;
}
