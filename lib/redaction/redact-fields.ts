/**
 * Redaction of a record's text fields before they are stored (a memory entry's statement and
 * subject), and where the markers stand in the stored text (what the Memory page shows: the kind
 * of each masked span, never its content). Pure.
 */
import { redact, redactionMarker, type RedactOptions } from "./redact";

/** A marker in a stored field: which field, what kind, where it stands (end exclusive). Never the content. */
export interface FieldRedaction<F extends string = string> {
  field: F;
  kind: string;
  start: number;
  end: number;
}

/** A marker as {@link redactionMarker} writes it. */
const MARKER = /\[redacted:([a-z0-9_]{1,40})\]/g;

/** One field after redaction: the stored text and its markers' spans in that text. */
export interface RedactedField<F extends string = string> {
  text: string;
  redactions: FieldRedaction<F>[];
}

/**
 * Masks `text` and returns the spans of the markers in the masked text (`[redacted:<kind>]`,
 * end exclusive). The spans `redact` reports point into the original text; each marker shifts
 * what follows it by the difference in length.
 */
export function redactField<F extends string>(field: F, text: string, options: RedactOptions): RedactedField<F> {
  const result = redact(text, options);
  let shift = 0;
  const redactions: FieldRedaction<F>[] = result.spans.map((s) => {
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
export function redactStatement(
  statement: string,
  subject: string,
  options: RedactOptions,
): { statement: string; subject: string; redactions: FieldRedaction<"statement" | "subject">[] } {
  const s = redactField<"statement" | "subject">("statement", statement, options);
  const subj = redactField<"statement" | "subject">("subject", subject, options);
  return { statement: s.text, subject: subj.text, redactions: [...subj.redactions, ...s.redactions] };
}
