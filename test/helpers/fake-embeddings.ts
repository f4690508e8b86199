/**
 * The fake endpoint's embeddings: a deterministic hashed bag of words (lower-cased ASCII words and
 * single CJK characters, each hashed into one of `dims` buckets with a sign), L2-normalised. Texts
 * that share words get close vectors, as with a real model, so ranking by them is meaningful in
 * tests and benches; no weights are needed.
 */

/** Default vector width. */
const FAKE_EMBEDDING_DIMS = 64;

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The words the vector is built from. */
function fakeEmbeddingTerms(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9_]+|[\u3400-\u9fff]/g) ?? [];
}

/** The vector of one text. */
export function fakeEmbedding(text: string, dims: number = FAKE_EMBEDDING_DIMS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const term of fakeEmbeddingTerms(text)) {
    const h = fnv1a(term);
    v[h % dims]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
}
