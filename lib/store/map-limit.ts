/**
 * `fn` over `items`, at most `limit` under way at once, in the order of `items`: for work that
 * waits on files or a database more than it computes (a scan of folders, resuming conversations).
 * Pure: no I/O of its own.
 */

/** `fn` over `items`, at most `limit` at a time; results in the order of `items`. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
