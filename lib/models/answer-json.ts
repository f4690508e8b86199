/**
 * The JSON object in a model's answer, with or without a Markdown code fence around it: what the
 * side jobs that ask a model for JSON (the intent classifier, the memory distiller, the knowledge
 * reranker) read back. Linear in the answer's length (plain index searches, no regex over it),
 * and only the first `maxChars` characters are looked at. Pure.
 */

/**
 * Parses the first fenced block (```json … ``` or ``` … ```), else the whole answer, from its
 * first `{` to its last `}`.
 * @throws Error when there is no JSON object, or a SyntaxError when it does not parse.
 */
export function jsonObjectIn(answer: string, maxChars: number): unknown {
  const content = answer.length > maxChars ? answer.slice(0, maxChars) : answer;
  let body = content;
  const open = content.indexOf("```");
  if (open >= 0) {
    const close = content.indexOf("```", open + 3);
    if (close >= 0) body = content.slice(open + 3, close).replace(/^json\b/i, "");
  }
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error("no JSON object in the answer");
  return JSON.parse(body.slice(start, end + 1));
}
