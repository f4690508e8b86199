/**
 * Runs once when the server process boots: takes the data folder's lock, clears temp files left
 * by a crash, seeds roles and the model registry. When another live server owns the folder, this
 * server says so and exits instead of serving two writers on one folder.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getApp } = await import("@/lib/server/app");
  try {
    await getApp();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`[astrion] cannot start: ${message}`);
    process.exit(1);
  }
}
