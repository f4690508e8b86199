/**
 * Runs once when the server process boots (Node runtime only): see lib/server/boot.ts.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    await import("./lib/server/boot");
  }
}
