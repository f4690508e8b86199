/**
 * Failed work through the real server (issue 30, part C): a leader's model call refused by the
 * endpoint gives a notice tied to the person's message with its cause by code, `POST …/retry`
 * takes the same work up again without re-sending it (202, then the answer), and answers 409 when
 * nothing is left to retry. A message over its limit is answered with a coded issue naming the
 * limit, never zod's raw JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeError, fakeText, startFakeOpenAI, type FakeOpenAI } from "./helpers/fake-openai";
import { writeFakeModels } from "./helpers/models-file";
import { firstEvents, startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

let fake: FakeOpenAI;
let server: TestServer;
let project: string;
let refuse = true;

beforeAll(async () => {
  // A 400 is not retried by the client: one refusal per call.
  fake = await startFakeOpenAI({ script: () => (refuse ? fakeError(400, { body: { error: { message: "no such model" } } }) : fakeText("Hello after the retry")) });
  const home = tempDir("astrion-retry-home-");
  project = tempDir("astrion-retry-project-");
  writeFakeModels(home, fake.url);
  server = await startServer({ home, env: { FAKE_OPENAI_KEY: "sk-test" } });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe("retrying failed work", () => {
  it("ties the failure to the message, retries it without re-sending, and refuses a retry of nothing", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "Retry", project_path: project });
    expect(created.status, created.text).toBe(201);
    const id: string = created.json.conversation.id;
    const sent = await server.api("POST", `/api/conversations/${id}/messages`, { content: "Say hello" });
    expect(sent.status).toBe(202);

    const failure = await until("the model_error notice", async () => {
      const snapshot = (await firstEvents(server, id)).find((e) => e.type === "snapshot")?.snapshot;
      return snapshot?.notices.find((n: { code: string }) => n.code === "model_error");
    });
    expect(failure).toMatchObject({ level: "error", params: { reason: "client" }, message_id: sent.json.message_id, trace_id: sent.json.trace_id, after_message_id: sent.json.message_id });

    refuse = false;
    const retried = await server.api("POST", `/api/conversations/${id}/retry`, {});
    expect(retried.status, retried.text).toBe(202);
    expect(retried.json).toEqual({ retried: "leader" });
    const messages = await until("the answer after the retry", async () => {
      const file = (await server.api("GET", `/api/conversations/${id}/messages`)).json;
      return file.messages.at(-1)?.content === "Hello after the retry" ? file.messages : undefined;
    });
    expect(messages.filter((m: { role: string }) => m.role === "user")).toHaveLength(1);

    const again = await server.api("POST", `/api/conversations/${id}/retry`, { agent_id: null });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe("conflict");
    const noAgent = await server.api("POST", `/api/conversations/${id}/retry`, { agent_id: 7 });
    expect(noAgent.status).toBe(404);
    const bad = await server.api("POST", `/api/conversations/${id}/retry`, { agent_id: "leader" });
    expect(bad.status).toBe(400);
  });

  it("answers a message over its limit with a coded issue naming the limit, not zod's JSON", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "Too long", project_path: project });
    const id: string = created.json.conversation.id;
    const answer = await server.api("POST", `/api/conversations/${id}/messages`, { content: "x".repeat(200_000) });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: "validation_failed", details: [{ path: "content", code: "too_long", limit: 100_000 }] });
    expect(answer.text).not.toMatch(/too_big|"origin"/);
  });
});
