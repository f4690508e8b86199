/** Polling for integration tests: waits for a condition the server reaches asynchronously. */

/** Polls `check` every 100 ms until it returns a truthy value, or fails after `timeoutMs` naming `what`. */
export async function until<T>(what: string, check: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
