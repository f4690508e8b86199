/**
 * The Team Leader's per-request cap of model calls is persisted: it is counted from the saved
 * messages, so a server killed in the middle of a request does not give the leader a fresh
 * allowance when it restarts.
 */
import path from "node:path";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type Script } from "./helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

const CAP = 4;
const env = { FAKE_OPENAI_KEY: "sk-cap", ASTRION_LEADER_BATCH_MS: "0", ASTRION_MAX_CALLS_PER_TASK: String(CAP) };

let fake: FakeOpenAI;
let home: string;
let project: string;
let requests = 0;
/** The third call hangs: the server is killed during it. */
let hanging: () => void = () => undefined;
const hung = new Promise<void>((resolve) => (hanging = resolve));

/** A leader that never stops calling a tool: only the cap ends its turn. */
function handler(): Script {
  requests++;
  if (requests === 3) {
    hanging();
    return fakeToolCalls([{ name: "list_agents", arguments: {} }], { delayMs: 60_000 });
  }
  return fakeToolCalls([{ name: "list_agents", arguments: {} }]);
}

function kill(s: TestServer): Promise<void> {
  return new Promise((resolve) => {
    if (s.proc.exitCode !== null || s.proc.signalCode !== null) return resolve();
    s.proc.once("exit", () => resolve());
    process.kill(-s.proc.pid!, "SIGKILL");
  });
}

const assistantCount = async (s: TestServer, id: string) => ((await s.api("GET", `/api/conversations/${id}/messages`)).json.messages as Array<{ role: string }>).filter((m) => m.role === "assistant").length;

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: handler });
  home = tempDir("astrion-home-");
  project = tempDir("astrion-project-");
  writeFileSync(path.join(home, "models.json"), JSON.stringify({ default: "fake", models: { fake: { base_url: fake.url, api_key_env: "FAKE_OPENAI_KEY", model: "fake-model" } } }));
});

afterAll(async () => {
  await fake?.close();
});

describe("the leader's call cap", () => {
  it("survives a SIGKILL in the middle of a request", async () => {
    let server = await startServer({ home, env });
    const id = (await server.api("POST", "/api/conversations", { title: "Cap", project_path: project })).json.conversation.id as string;
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Keep going" })).status).toBe(202);
    // Two calls saved, then the third hangs and the server dies under it.
    await hung;
    expect(await assistantCount(server, id)).toBe(2);
    await kill(server);

    server = await startServer({ home, env });
    try {
      const records = await until("the cap", async () => {
        const r = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<{ action: string }>;
        return r.some((x) => x.action === "cap_calls") ? r : null;
      }, 60_000);
      expect(records.filter((x) => x.action === "cap_calls")).toHaveLength(1);
      // The calls saved before the kill count: the leader made only what was left of its allowance.
      expect(await assistantCount(server, id)).toBe(CAP);
    } finally {
      await server.stop();
    }
  });
});
