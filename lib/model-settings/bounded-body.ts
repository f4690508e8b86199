/**
 * The text of an HTTP answer read up to a byte limit: null once it is longer (the rest is not
 * read; the body is cancelled), so a server that streams without end, or a huge list, costs at
 * most the limit in memory, whatever its content-length says.
 */
export async function textWithin(res: Response, maxBytes: number): Promise<string | null> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (!res.body || declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    return res.body ? null : "";
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
