/**
 * A whole run on the built-in offline model, watched over SSE as a browser would: the default
 * model with no endpoint configured, real workspace tools on a real project folder, a question a
 * person answers, live deltas, resume with Last-Event-ID without gaps or duplicates while the
 * conversation is held (streamed text is not replayed), agents that keep working when every viewer
 * goes away, and a fresh snapshot for an id from before the conversation was let go.
 */
import http from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, tempDir, type TestServer } from "./helpers/server";
import { until } from "./helpers/wait";

let server: TestServer;
let project: string;

interface SseEvent {
  id: string;
  data: { type: string; [key: string]: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** An SSE client: collects events until closed. */
function connect(id: string, lastEventId?: string) {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let buffer = "";
  const req = http.request({
    host: "127.0.0.1",
    port: server.port,
    path: `/api/conversations/${id}/events`,
    headers: { host: `127.0.0.1:${server.port}`, ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
  });
  const ready = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.on("response", (res) => {
      res.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        let end: number;
        while ((end = buffer.indexOf("\n\n")) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split("\n");
          const idLine = lines.find((l) => l.startsWith("id: "));
          const dataLine = lines.find((l) => l.startsWith("data: "));
          for (const l of lines) if (l.startsWith(":")) comments.push(l);
          if (idLine && dataLine) events.push({ id: idLine.slice(4), data: JSON.parse(dataLine.slice(6)) });
        }
      });
      resolve(res);
    });
    req.on("error", (e) => ((e as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(e)));
  });
  req.end();
  return { events, comments, ready, close: () => req.destroy() };
}


const seq = (id: string) => Number(id.split("-").at(-1));

/** Numbered events are contiguous; a live-only `delta` carries the id of the numbered event before it. */
function expectContiguous(events: SseEvent[], after: string) {
  let last = after;
  for (const e of events) {
    if (e.data.type === "delta") expect(e.id).toBe(last);
    else {
      expect(seq(e.id)).toBe(seq(last) + 1);
      last = e.id;
    }
  }
}

beforeAll(async () => {
  project = tempDir("astrion-project-");
  mkdirSync(path.join(project, "src"));
  writeFileSync(path.join(project, "README.md"), "# Landing page\n\nThe marketing landing page of Acme.\n");
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "acme-landing", scripts: { dev: "vite", build: "vite build" } }, null, 2));
  writeFileSync(path.join(project, "src", "index.html"), '<!doctype html>\n<html><body><h1>Acme</h1><img src="hero.png"></body></html>\n');
  writeFileSync(path.join(project, "src", "styles.css"), "body { color: #333; background: #fafafa; }\n");
  server = await startServer({ env: { ASTRION_OFFLINE_DELAY_MS: "5" } });
});

afterAll(async () => {
  await server?.stop();
});

describe("a run on the offline model", () => {
  it("assembles a team that reads the project, asks a person, reports, and is summarized — all streamed live", async () => {
    const created = await server.api("POST", "/api/conversations", { title: "Offline run", project_path: project });
    expect(created.json.conversation.model_key).toBe("offline");
    const id = created.json.conversation.id;

    const viewer = connect(id);
    const res = await viewer.ready;
    expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    await until("snapshot", () => viewer.events[0]);
    expect(viewer.events[0]!.data.type).toBe("snapshot");
    expect(viewer.events[0]!.data.snapshot.model_label).toMatch(/offline/i);

    const posted = await server.api("POST", `/api/conversations/${id}/messages`, { content: "Improve the landing page" });
    expect(posted.status).toBe(202);
    expect(posted.json.trace_id).toMatch(/^trace_/);

    // A second viewer joins mid-run and holds the conversation while the first drops and comes
    // back with its Last-Event-ID: replayed every numbered event since, in order, no gap, no
    // duplicate, and none of the streamed text it missed.
    const second = connect(id);
    await until("live deltas", () => viewer.events.find((e) => e.data.type === "delta"));
    const lastSeen = viewer.events[viewer.events.length - 1]!.id;
    viewer.close();
    const resumed = connect(id, lastSeen);
    const question = await until("a pending question", () => resumed.events.find((e) => e.data.type === "question")?.data.question);
    expect(resumed.events[0]!.data.type).not.toBe("snapshot");
    expectContiguous(resumed.events, lastSeen);
    expect(resumed.events.filter((e) => e.data.type !== "delta").length).toBeGreaterThan(0);
    // Every viewer leaves: the agents keep working (one waits for the person).
    const lastResumed = resumed.events[resumed.events.length - 1]!.id;
    second.close();
    resumed.close();

    // A person answers in the agent's panel (through the API), with no viewer connected.
    const answered = await server.api("POST", `/api/conversations/${id}/agents/${question.agent_id}/answers`, {
      question_id: question.question_id,
      answer: "Focus on the colors and the hero image's alt text.",
    });
    expect(answered.status).toBe(200);

    const summary = await until("the final summary", async () => {
      const file = (await server.api("GET", `/api/conversations/${id}/messages`)).json;
      const last = file.messages[file.messages.length - 1];
      return last?.role === "assistant" && /Team summary/.test(String(last.content)) ? file : null;
    });
    const reports = summary.messages.filter((m: { content: string | null }) => String(m.content).includes("的任务完成汇报"));
    const agentsRes = (await server.api("GET", `/api/conversations/${id}/agents`)).json;
    expect(agentsRes.agents.length).toBeGreaterThanOrEqual(1);
    expect(agentsRes.agents.length).toBeLessThanOrEqual(3);
    expect(reports).toHaveLength(agentsRes.agents.length);
    expect(agentsRes.agents.every((a: { metadata: { status: string } }) => a.metadata.status === "completed")).toBe(true);

    // The sub-agents really used the workspace tools on the project folder.
    const asker = (await server.api("GET", `/api/conversations/${id}/agents/${question.agent_id}`)).json;
    const toolNames = asker.messages.flatMap((m: { tool_calls?: Array<{ function: { name: string } }> }) => (m.tool_calls ?? []).map((c) => c.function.name));
    expect(toolNames).toEqual(expect.arrayContaining(["list_files", "read_file", "search_files", "ask_master", "report_to_leader"]));
    expect(JSON.stringify(asker.messages)).toContain("The marketing landing page of Acme");
    expect(JSON.stringify(summary.messages)).toContain("Focus on the colors");
    expect(summary.token_statistics.total.total_tokens).toBeGreaterThan(0);
    await until("phase IDLE", async () => (await server.api("GET", `/api/conversations/${id}`)).json.conversation.phase === "IDLE", 10_000);

    // Nothing held it once the run was over and nobody watched: it was let go, its numbering with
    // it. The id from before gets a fresh snapshot, which holds the summary.
    await until("the conversation let go", async () => {
      const held = (await server.api("GET", "/api/health")).json.resident;
      return held.runs === 0 && held.runs_releasing === 0 && held.bus_topics === 0;
    });
    const late = connect(id, lastResumed);
    await until("a snapshot", () => late.events[0]);
    late.close();
    expect(late.events[0]!.data.type).toBe("snapshot");
    expect(late.events[0]!.id.split("-").slice(0, 2)).not.toEqual(lastResumed.split("-").slice(0, 2));
    expect(JSON.stringify(late.events[0]!.data.snapshot.leader.messages)).toContain("Team summary");
    expectContiguous(viewer.events.slice(1), viewer.events[0]!.id);
  });
});
