/**
 * What the stored viewers of a conversation mean now: the people present (several tabs of one
 * person count once) with their drawers and typing, and which entries have expired. Pure.
 */
import type { PresentPerson, TypingTarget } from "@/lib/contracts/presence";
import type { PresenceEntry } from "./port";

/** The people `entries` show at `now`, and the viewers whose acknowledgment is overdue. */
export function presentPeople(entries: readonly PresenceEntry[], now: number): { people: PresentPerson[]; expired: string[] } {
  const expired: string[] = [];
  const byPerson = new Map<string, { first: number; name: string; drawers: Set<number>; typing: Set<TypingTarget> }>();
  for (const entry of entries) {
    if (entry.expiresAt <= now) {
      expired.push(entry.viewer);
      continue;
    }
    let person = byPerson.get(entry.person.id);
    if (!person) {
      person = { first: entry.joinedAt, name: entry.person.name, drawers: new Set(), typing: new Set() };
      byPerson.set(entry.person.id, person);
    }
    // The name of the person's earliest tab, so a rename seen by a later tab does not flicker.
    if (entry.joinedAt < person.first) person.first = entry.joinedAt;
    if (entry.drawer !== null) person.drawers.add(entry.drawer);
    if (entry.typing !== null && entry.typingUntil > now) person.typing.add(entry.typing);
  }
  const people = [...byPerson.entries()]
    .sort(([idA, a], [idB, b]) => a.first - b.first || (idA < idB ? -1 : idA > idB ? 1 : 0))
    .map(([id, p]) => ({
      person: { id, name: p.name },
      drawers: [...p.drawers].sort((a, b) => a - b),
      typing: [...p.typing].sort(compareTargets),
    }));
  return { people, expired: expired.sort() };
}

/** The leader first, then sub-agents by number. */
function compareTargets(a: TypingTarget, b: TypingTarget): number {
  if (a === b) return 0;
  if (a === "leader") return -1;
  if (b === "leader") return 1;
  return a - b;
}
