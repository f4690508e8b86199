/**
 * Runs once when the server process boots (Node runtime only): see lib/server/boot.ts, reached
 * through the server's core (lib/server/get-app.ts).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { serverCore } = await import("./lib/server/get-app");
    await (await serverCore()).boot();
  }
}
