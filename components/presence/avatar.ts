/**
 * A person's avatar without pictures: initials and a colour taken from their id, so the same
 * person has the same colour on every page and in every browser. Pure.
 */

/** Up to two initials: the first letters of the first two words (one character for a single word or a CJK name). */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return "?";
  const first = [...words[0]!][0]!;
  const second = words.length > 1 ? [...words[1]!][0]! : "";
  return (first + second).toUpperCase();
}

/** A hue (0–359) from the id: FNV-1a over its UTF-16 units, stable everywhere. */
export function hueOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 360;
}

/** The avatar's background: the id's hue, dark enough for white initials. */
export function avatarColour(id: string): string {
  return `hsl(${hueOf(id)} 60% 38%)`;
}
