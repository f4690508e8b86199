/**
 * Redaction of an entry's text fields before they are stored, and where the markers stand in the
 * stored text (what the Memory page shows: the kind of each masked span, never its content). Pure.
 */
import { redact, redactionMarker, type RedactOptions } from "./redact";
import type { MemoryRedaction } from "./schema";

/** A marker as {@link redactionMarker} writes it. */
const MARKER = /\[redacted:([a-z0-9_]{1,40})\]/g;

/** One field after redaction: the stored text and its markers' spans in that text. */
export interface RedactedField {
  text: string;
  redactions: MemoryRedaction[];
}

/**
 * Masks `text` and returns the spans of the markers in the masked text (`[redacted:<kind>]`,
 * end exclusive). The spans `redact` reports point into the original text; each marker shifts
 * what follows it by the difference in length.
 */
export function redactField(field: MemoryRedaction["field"], text: string, options: RedactOptions): RedactedField {
  const result = redact(text, options);
  let shift = 0;
  const redactions: MemoryRedaction[] = result.spans.map((s) => {
    const marker = redactionMarker(s.kind);
    const start = s.start + shift;
    shift += marker.length - (s.end - s.start);
    return { field, kind: s.kind, start, end: start + marker.length };
  });
  // Markers already in the text (a person editing a stored entry keeps them) are spans too.
  for (const m of result.text.matchAll(MARKER)) {
    const start = m.index;
    if (!redactions.some((r) => r.start === start)) redactions.push({ field, kind: m[1]!, start, end: start + m[0].length });
  }
  return { text: result.text, redactions: redactions.sort((a, b) => a.start - b.start) };
}

/** Redacts a statement and a subject; spans of both, subject first. */
export function redactStatement(statement: string, subject: string, options: RedactOptions): { statement: string; subject: string; redactions: MemoryRedaction[] } {
  const s = redactField("statement", statement, options);
  const subj = redactField("subject", subject, options);
  return { statement: s.text, subject: subj.text, redactions: [...subj.redactions, ...s.redactions] };
}
