/**
 * Shared context and conflict arbitration through the HTTP API of the real running server: a
 * person's writes (ranking like the leader), a write waiting for a person and that person's
 * decision, a person overwriting a value a real sub-agent wrote with its tool (the real `openai`
 * client against a fake model), the `conflict_resolution` records in the timeline, and the
 * documented errors.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeText, fakeToolCalls, startFakeOpenAI, type FakeOpenAI, type FakeRequestBody, type Script } from "./helpers/fake-openai";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";
import { writeFakeModels } from "./helpers/models-file";

let server: TestServer;
let fake: FakeOpenAI;
let project: string;

type Msg = { role: string; content?: string | null; tool_calls?: Array<{ function: { name: string } }> };
const called = (body: FakeRequestBody, name: string) => ((body.messages ?? []) as Msg[]).some((m) => (m.tool_calls ?? []).some((c) => c.function.name === name));

/** The leader delegates once; the researcher writes "plan" (fresh, version 0 → 1) and reports. */
function script(body: FakeRequestBody): Script {
  const leader = JSON.stringify(body.tools ?? []).includes("create_sub_agent");
  if (leader) {
    if (!called(body, "create_sub_agent")) return fakeToolCalls([{ name: "create_sub_agent", arguments: { role_id: "researcher", task: "Write the plan" } }]);
    return fakeText("SUMMARY: the researcher wrote the plan");
  }
  if (!called(body, "update_shared_context")) {
    return fakeToolCalls([{ id: "sc_plan", name: "update_shared_context", arguments: { key: "plan", value: "agent plan: ship v1", mode: "overwrite", expected_version: 0 } }]);
  }
  return fakeToolCalls([{ name: "report_to_leader", arguments: { summary: "plan written" } }]);
}

beforeAll(async () => {
  fake = await startFakeOpenAI({ script: script });
  const home = tempDir("astrion-home-");
  writeFakeModels(home, fake.url, { default: "offline" });
  // A wide window so two person writes a few ms apart are "neither clearly prior" on any machine.
  server = await startServer({ home, env: { ASTRION_CONFLICT_WINDOW_MS: "60000", FAKE_OPENAI_KEY: "sk-fake-test-key" } });
  project = tempDir("astrion-project-");
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

function expectError(res: { status: number; json: any }, status: number, code: string) { // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(res.status).toBe(status);
  expect(res.json?.error?.code).toBe(code);
  expect(res.json.error.message.length).toBeGreaterThan(0);
}

async function newConversation(title: string, model_key?: string): Promise<string> {
  const res = await server.api("POST", "/api/conversations", { title, project_path: project, ...(model_key ? { model_key } : {}) });
  expect(res.status).toBe(201);
  return res.json.conversation.id as string;
}

const url = (id: string, rest = "") => `/api/conversations/${id}/shared-context${rest}`;

describe("shared context API", () => {
  it("GET answers an empty context for a new conversation, 404 for an unknown one and 400 for a bad id", async () => {
    const id = await newConversation("empty");
    const res = await server.api("GET", url(id));
    expect(res.status).toBe(200);
    expect(res.json.shared_context).toEqual({ version: 1, entries: {}, pending: [], history: [] });
    expectError(await server.api("GET", url("conv_20000101_000000_001")), 404, "not_found");
    expectError(await server.api("GET", url("nope")), 400, "validation_failed");
  });

  it("bad bodies are answered 400 before anything is written", async () => {
    const id = await newConversation("bad bodies");
    expectError(await server.api("PUT", url(id), { key: "k", value: "v", mode: "overwrite" }), 400, "validation_failed");
    expectError(await server.api("PUT", url(id), { key: "k", value: "v", mode: "replace", expected_version: 0 }), 400, "validation_failed");
    expectError(await server.api("PUT", url(id), { key: "", value: "v", mode: "append" }), 400, "validation_failed");
    expectError(await server.api("PUT", url(id), { key: "k", value: 3, mode: "append" }), 400, "validation_failed");
    expectError(await server.api("PUT", url(id), { key: "k", value: "v", mode: "overwrite", expected_version: -1 }), 400, "validation_failed");
    expectError(await server.request({ method: "PUT", path: url(id), headers: { "content-type": "application/json", origin: server.url }, body: "{oops" }), 400, "bad_request");
    expectError(await server.api("POST", url(id, "/decisions"), { conflict_id: "conflict_x" }), 400, "validation_failed");
    expectError(await server.api("POST", url(id, "/decisions"), { conflict_id: "not-an-id", choice: "keep_current" }), 400, "validation_failed");
    expect((await server.api("GET", url(id))).json.shared_context.entries).toEqual({});
    expectError(await server.api("PUT", url("conv_20000101_000000_001"), { key: "k", value: "v", mode: "append" }), 404, "not_found");
  });

  it("a person writes, appends, hits a conflict that waits for them, and decides it; every overwrite is in the timeline with both values", async () => {
    const id = await newConversation("arbitration");
    const fresh = await server.api("PUT", url(id), { key: "api", value: "keep /v1", mode: "overwrite", expected_version: 0 });
    expect(fresh.status).toBe(200);
    expect(fresh.json.decision).toMatchObject({ outcome: "applied", rule: "fresh", version: 1, entry: { value: "keep /v1", author: "person", author_role: "person" } });

    const appended = await server.api("PUT", url(id), { key: "api", value: "(checked by QA)", mode: "append" });
    expect(appended.json.decision).toMatchObject({ outcome: "applied", rule: "append", version: 2, entry: { value: "keep /v1\n(checked by QA)" } });

    // Based on version 1, which is stale: same authority and within the window → waits for a person.
    const stale = await server.api("PUT", url(id), { key: "api", value: "drop /v1", mode: "overwrite", expected_version: 1 });
    expect(stale.status).toBe(200);
    expect(stale.json.decision).toMatchObject({ outcome: "pending", rule: "awaiting_person", version: 2 });
    const conflictId = stale.json.decision.conflict.conflict_id as string;

    const during = (await server.api("GET", url(id))).json.shared_context;
    expect(during.entries.api).toMatchObject({ value: "keep /v1\n(checked by QA)", version: 2 });
    expect(during.pending).toEqual([expect.objectContaining({ conflict_id: conflictId, key: "api", proposed: expect.objectContaining({ value: "drop /v1" }) })]);

    expectError(await server.api("POST", url(id, "/decisions"), { conflict_id: "conflict_0000", choice: "keep_current" }), 404, "not_found");
    const decided = await server.api("POST", url(id, "/decisions"), { conflict_id: conflictId, choice: "take_proposed" });
    expect(decided.status).toBe(200);
    expect(decided.json.decision).toMatchObject({ outcome: "applied", rule: "person_decision", version: 3, entry: { value: "drop /v1", decided_by: "person" } });
    expectError(await server.api("POST", url(id, "/decisions"), { conflict_id: conflictId, choice: "keep_current" }), 409, "conflict");

    const after = (await server.api("GET", url(id))).json.shared_context;
    expect(after.entries.api).toMatchObject({ value: "drop /v1", version: 3 });
    expect(after.pending).toEqual([]);
    // The file on disk is what the API answered.
    expect(JSON.parse(readFileSync(path.join(server.home, "conversations", id, "shared_context.json"), "utf8"))).toEqual(after);

    const records = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const resolutions = records.filter((r) => r.action === "conflict_resolution");
    expect(resolutions.map((r) => [r.status, r.envelope.payload.rule, r.version])).toEqual([
      ["ok", "fresh", 1],
      ["pending", "awaiting_person", 2],
      ["ok", "person_decision", 3],
    ]);
    for (const r of resolutions) {
      expect(r).toMatchObject({ resource: "shared_context:api", from_agent: "system", to_agent: "user", envelope: { type: "event" } });
      expect(r.envelope.payload).toHaveProperty("current_value");
      expect(r.envelope.payload).toHaveProperty("proposed_value");
    }
    expect(resolutions[2]!.envelope.payload).toMatchObject({ current_value: "keep /v1\n(checked by QA)", proposed_value: "drop /v1", decided_by: "person" });
    expect(records.filter((r) => r.action === "shared_context_write")).toHaveLength(1);
    // Each person action is its own trace: the request record, then its decision event.
    const decisionRecord = resolutions[2]!;
    const request = records.find((r) => r.turn_id === decisionRecord.parent_turn_id);
    expect(request).toMatchObject({ action: "decide_conflict", from_agent: "user", trace_id: decisionRecord.trace_id });
  });

  it("a person outranks an agent: a stale person write over an agent's value is applied (rule 1)", async () => {
    const id = await newConversation("person beats agent");
    const file = path.join(server.home, "conversations", id, "shared_context.json");
    const now = new Date().toISOString();
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        entries: { plan: { key: "plan", value: "agent plan v2", version: 2, author: "研究员-1", author_role: "agent", updated_at: now } },
        pending: [],
        history: [],
      }),
    );
    const res = await server.api("PUT", url(id), { key: "plan", value: "person plan", mode: "overwrite", expected_version: 1 });
    expect(res.json.decision).toMatchObject({
      outcome: "applied",
      rule: "leader_wins",
      version: 3,
      resolution: { current_value: "agent plan v2", proposed_value: "person plan", winner: { side: "proposed", author_role: "person" }, loser: { side: "current", author: "研究员-1" } },
    });
    // A version the key never had is refused, and still recorded.
    const confused = await server.api("PUT", url(id), { key: "plan", value: "x", mode: "overwrite", expected_version: 9 });
    expect(confused.json.decision).toMatchObject({ outcome: "rejected", rule: "unknown_version", version: 3 });
    const records = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(records.filter((r) => r.action === "conflict_resolution").map((r) => r.status)).toEqual(["ok", "refused"]);
  });

  it("equal authority outside the conflict window: a stale write whose request is later than the current value's is applied, with both values recorded", async () => {
    const id = await newConversation("later request wins");
    const file = path.join(server.home, "conversations", id, "shared_context.json");
    // Version 4, requested by a person two minutes ago: outside the 60 s window of this server.
    const then = new Date(Date.now() - 120_000).toISOString();
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        entries: { plan: { key: "plan", value: "v4 by a person", version: 4, author: "person", author_role: "person", updated_at: then, requested_at: then } },
        pending: [],
        history: [],
      }),
    );
    const res = await server.api("PUT", url(id), { key: "plan", value: "based on v3", mode: "overwrite", expected_version: 3 });
    expect(res.status).toBe(200);
    expect(res.json.decision).toMatchObject({
      outcome: "applied",
      rule: "later_wins",
      version: 5,
      entry: { value: "based on v3", version: 5 },
      resolution: {
        winner: { side: "proposed", author: "person" },
        loser: { side: "current", author: "person" },
        current_value: "v4 by a person",
        current_version: 4,
        proposed_value: "based on v3",
        expected_version: 3,
        version: 5,
        current_requested_at: then,
        window_ms: 60_000,
      },
    });
    expect(Date.parse(res.json.decision.resolution.proposed_requested_at)).toBeGreaterThan(Date.parse(then) + 60_000);
    const records = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(records.filter((r) => r.action === "conflict_resolution").map((r) => [r.status, r.version, r.envelope.payload.rule, r.envelope.payload.current_value, r.envelope.payload.proposed_value])).toEqual([
      ["ok", 5, "later_wins", "v4 by a person", "based on v3"],
    ]);
  });

  it("a person overwrites a value a sub-agent wrote with its tool: the person outranks the agent, and the record holds both values, winner and loser", async () => {
    const id = await newConversation("agent then person", "fake");
    expect((await server.api("POST", `/api/conversations/${id}/messages`, { content: "Have the researcher write the plan" })).status).toBe(202);
    const written = await until("the agent's plan", async () => {
      const sc = (await server.api("GET", url(id))).json.shared_context;
      return sc.entries.plan ? sc : undefined;
    });
    expect(written.entries.plan).toMatchObject({ value: "agent plan: ship v1", version: 1, author: "Researcher_1", author_role: "agent" });
    await until("the leader's summary", async () =>
      ((await server.api("GET", `/api/conversations/${id}/messages`)).json.messages as Msg[]).some((m) => m.role === "assistant" && String(m.content ?? "").startsWith("SUMMARY")),
    );

    // The person read the context before the agent wrote (version 0): a stale overwrite, settled by rule 1.
    const res = await server.api("PUT", url(id), { key: "plan", value: "person plan: ship v2", mode: "overwrite", expected_version: 0 });
    expect(res.status).toBe(200);
    expect(res.json.decision).toMatchObject({
      outcome: "applied",
      rule: "leader_wins",
      version: 2,
      entry: { value: "person plan: ship v2", version: 2, author: "person", author_role: "person" },
      resolution: {
        rule: "leader_wins",
        outcome: "applied",
        winner: { side: "proposed", author: "person", author_role: "person" },
        loser: { side: "current", author: "Researcher_1", author_role: "agent" },
        current_value: "agent plan: ship v1",
        current_version: 1,
        proposed_value: "person plan: ship v2",
        expected_version: 0,
        version: 2,
      },
    });
    const onDisk = JSON.parse(readFileSync(path.join(server.home, "conversations", id, "shared_context.json"), "utf8"));
    expect(onDisk.entries.plan).toMatchObject({ value: "person plan: ship v2", version: 2 });
    expect(onDisk.history.map((r: { rule: string; winner: { author: string } }) => [r.rule, r.winner.author])).toEqual([
      ["fresh", "Researcher_1"],
      ["leader_wins", "person"],
    ]);

    // Both overwrites are in the timeline: the agent's (code to agent:1) and the person's (code to the user).
    const records = (await server.api("GET", `/api/conversations/${id}/timeline`)).json.records as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const resolutions = records.filter((r) => r.action === "conflict_resolution");
    expect(resolutions.map((r) => [r.from_agent, r.to_agent, r.status, r.version, r.envelope.payload.rule])).toEqual([
      ["system", "agent:1", "ok", 1, "fresh"],
      ["system", "user", "ok", 2, "leader_wins"],
    ]);
    expect(resolutions[1]!.envelope.payload).toMatchObject({ current_value: "agent plan: ship v1", proposed_value: "person plan: ship v2", loser: { author: "Researcher_1" } });
  });
});
