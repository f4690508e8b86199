/**
 * `npm start` on a port another program holds: the server exits with one line that says so and
 * how to start on another port (`PORT=`), rather than only Node's EADDRINUSE.
 */
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "./helpers/server";

const holders: net.Server[] = [];
afterAll(async () => {
  await Promise.all(holders.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

describe("a port already in use", () => {
  it("is refused with a line naming the port and PORT=", { timeout: 120_000 }, async () => {
    const holder = net.createServer();
    holders.push(holder);
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as net.AddressInfo).port;
    const proc = spawn(process.execPath, [path.join(REPO_ROOT, "scripts", "start.mjs")], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ASTRION_HOME: tempDir("astrion-port-"), NEXT_TELEMETRY_DISABLED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    proc.stdout.on("data", (c: Buffer) => (out += c.toString()));
    proc.stderr.on("data", (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(out).toContain(`cannot listen on 127.0.0.1:${port}`);
    expect(out).toContain(`Another program is using port ${port}`);
    expect(out).toMatch(/PORT=\d+ npm start/);
  });
});
