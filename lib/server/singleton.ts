/**
 * The one place that keeps something on globalThis. Under `next dev` Next loads the server's code
 * in several route bundles of one process, each with its own copy of every module; what must exist
 * once per process (the app built by the composition root, the server's core that
 * scripts/serve.mjs loads in production) is kept here, under a registered symbol, and made by the
 * first bundle that asks.
 */

/** The value kept under `key` for this process, made by `make` on the first call. */
export function processSingleton<T>(key: string, make: () => T): T {
  const g = globalThis as unknown as Record<symbol, T | undefined>;
  const symbol = Symbol.for(`astrion.${key}`);
  const existing = g[symbol];
  if (existing !== undefined) return existing;
  const made = make();
  g[symbol] = made;
  return made;
}

/** The value kept under `key` for this process, or undefined when nothing has made it yet. */
export function keptProcessSingleton<T>(key: string): T | undefined {
  return (globalThis as unknown as Record<symbol, T | undefined>)[Symbol.for(`astrion.${key}`)];
}

/** Forgets the value kept under `key`, so the next {@link processSingleton} call makes it again. */
export function forgetProcessSingleton(key: string, only?: unknown): void {
  const g = globalThis as unknown as Record<symbol, unknown>;
  const symbol = Symbol.for(`astrion.${key}`);
  if (only === undefined || g[symbol] === only) delete g[symbol];
}
