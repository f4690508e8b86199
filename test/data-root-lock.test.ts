/** Only one server may own a data folder; a second one refuses to start and says why. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, runToExit, startServer, type TestServer } from "./helpers/server";

let first: TestServer;

beforeAll(async () => {
  first = await startServer();
});
afterAll(async () => {
  await first?.stop();
});

describe("data folder ownership", () => {
  it("a second server on the same folder exits with a message naming the folder and the owner", async () => {
    const port = await freePort();
    const { code, output } = await runToExit({ PORT: String(port), HOST: "127.0.0.1", ASTRION_HOME: first.home });
    expect(code).not.toBe(0);
    expect(output).toContain(`[astrion] cannot start: Data folder ${first.home} is already in use`);
    // It never said it was serving: the lock is taken before the port is listened on.
    expect(output).not.toContain("ready on");
    const health = await first.api("GET", "/api/health");
    expect(output).toContain(`pid ${health.json.pid}`);
    // The first server is unaffected.
    expect(health.status).toBe(200);
  });

  it("a folder whose owner died (SIGKILL) is taken over on the next start", async () => {
    const health = await first.api("GET", "/api/health");
    process.kill(health.json.pid, "SIGKILL");
    await first.stop();
    const second = await startServer({ home: first.home });
    try {
      const res = await second.api("GET", "/api/health");
      expect(res.status).toBe(200);
      expect(res.json.pid).not.toBe(health.json.pid);
    } finally {
      await second.stop();
    }
  });
});
