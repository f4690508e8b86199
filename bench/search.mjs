/**
 * History search at 10,000 conversations of 50 messages (a leader's 20 and two sub-agents' 15
 * each: 500,000 messages). The data folder is written on disk in the seed's format before the
 * server starts (index.json and state.json too; 10% of the conversations archived), with no
 * search database: the server rebuilds it from those files at start, in the background, and the
 * time that takes (as the server measures it) is reported. Then, over HTTP on loopback, the median
 * of each query's time over SAMPLES requests after warm-up ones: words common and rare, a phrase,
 * a typed prefix, Chinese, a miss, and with each filter. Last, the server is restarted on the
 * same folder: the index is opened, not rebuilt, and no conversation is re-read.
 *
 * The text is generated (fixed seed): sentences of a few hundred English words of the trade, file
 * names, numbers, and Chinese phrases in one message of eight.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { request, sleep, startServer, stats, tempDir, timed } from "./lib.mjs";

const CONVERSATIONS = Number(process.env.BENCH_SEARCH_CONVERSATIONS ?? 10_000);
const LEADER_MESSAGES = 20;
const AGENTS = 2;
const AGENT_MESSAGES = 15;
const SAMPLES = 20;
const ROLES = [
  ["researcher", "Researcher"],
  ["full-stack-engineer", "Full-Stack Engineer"],
  ["technical-writer", "Technical Writer"],
  ["test-engineer", "Test Engineer"],
  ["ui-operator", "UI Operator"],
  ["code-reviewer", "Code Reviewer"],
];
const WORDS = (
  "the a to of and in for is on that with this it be are as we by from at or an will not can should file test build server agent leader task report " +
  "review code function error message search index query database write read atomic rename commit deploy release migration schema table column " +
  "endpoint request response token model stream chunk retry timeout cache memory disk folder project config environment variable docker kubernetes " +
  "pipeline coverage benchmark latency throughput queue worker thread lock mutex transaction rollback snapshot checkpoint replay journal audit " +
  "permission role user session cookie header origin host proxy route handler component render state hook effect props layout style button form " +
  "input validation parse serialize json yaml markdown chart metrics dashboard alert incident postmortem runbook onboarding billing invoice payment " +
  "refund customer account password login signup email notification webhook callback client sdk library package dependency version upgrade patch " +
  "bug fix feature refactor cleanup docs readme changelog landing page hero section card sign-up analytics tracking consent banner cookie policy " +
  "accessibility contrast keyboard focus screen reader translation locale currency timezone calendar schedule reminder export import archive"
).split(" ");
const ZH = ["原子写入", "临时文件", "重命名", "数据目录", "会话索引", "子代理", "任务完成汇报", "团队负责人", "全文检索", "前端设计", "性能测试", "崩溃恢复", "审计日志", "共享上下文", "冲突仲裁"];

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(r, chinese) {
  const sentences = 1 + Math.floor(r() * 4);
  const out = [];
  for (let i = 0; i < sentences; i++) {
    const n = 6 + Math.floor(r() * 14);
    const words = [];
    for (let k = 0; k < n; k++) {
      const x = r();
      if (chinese && x < 0.15) words.push(ZH[Math.floor(r() * ZH.length)]);
      else if (x < 0.05) words.push(`src/module${Math.floor(r() * 5000)}.ts`);
      else if (x < 0.08) words.push(`#${Math.floor(r() * 100_000)}`);
      else words.push(WORDS[Math.floor(Math.pow(r(), 1.7) * WORDS.length)]);
    }
    out.push(`${words.join(" ")}.`);
  }
  return out.join(" ");
}

const pad = (n, w = 2) => String(n).padStart(w, "0");
function stamp(date) {
  const d = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const t = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return { iso: `${d}T${t}`, id: `conv_${d.replaceAll("-", "")}_${t.replaceAll(":", "")}` };
}

/** Messages as the engine writes them; ids carry their time (base 36), as the engine's do. */
function messages(r, count, startMs, prefix, agentId) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const role = i % 2 === 0 ? "user" : "assistant";
    const at = startMs + i * 20_000;
    out.push({
      role,
      content: text(r, r() < 0.125),
      message_id: `msg_${prefix}_${at.toString(36)}${Math.floor(r() * 36 ** 6).toString(36).padStart(6, "0")}`,
      metadata: { message_source: role === "user" ? (agentId ? "leader" : "user") : agentId ? "sub_agent" : "leader", visibility: "chat", starts_work: false, ...(agentId ? { agent_id: agentId } : {}) },
    });
  }
  return out;
}

function seedDataFolder(home, project) {
  const r = rng(9);
  const dir = path.join(home, "conversations");
  mkdirSync(dir, { recursive: true });
  const index = {};
  const base = new Date(2025, 0, 1, 9, 0, 0).getTime();
  let agentId = 0;
  let last = null;
  for (let i = 0; i < CONVERSATIONS; i++) {
    const startMs = base + i * 3_600_000;
    const created = stamp(new Date(startMs));
    const updated = stamp(new Date(startMs + 1_800_000));
    const id = `${created.id}_001`;
    const title = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${i}`;
    const ids = [];
    mkdirSync(path.join(dir, id, "agents"), { recursive: true });
    for (let a = 0; a < AGENTS; a++) {
      const n = ++agentId;
      ids.push(n);
      const [roleId, roleName] = ROLES[(i + a) % ROLES.length];
      const at = stamp(new Date(startMs + 60_000));
      const adir = path.join(dir, id, "agents", String(n));
      mkdirSync(adir);
      const meta = { agent_id: n, role_id: roleId, display_name: `${roleName}_${n}`, status: "completed", created_at: at.iso, updated_at: updated.iso, task_summary: "", model_key: a === 0 ? "offline" : "qwen3-max", thinking_mode: "fast", pending_messages: [], pending_tool_calls: [] };
      writeFileSync(path.join(adir, "metadata.json"), JSON.stringify(meta, null, 2));
      writeFileSync(path.join(adir, "messages.json"), JSON.stringify({ agent_id: n, role_id: roleId, display_name: meta.display_name, created_at: at.iso, updated_at: updated.iso, messages: messages(r, AGENT_MESSAGES, startMs + 60_000, "agent", n) }, null, 2));
    }
    const meta = { id, title, created_at: created.iso, updated_at: updated.iso, project_path: project, model_key: "offline", thinking_mode: false, run_mode: "fast", status: i % 10 === 9 ? "archived" : "active", agent_count: AGENTS, agent_ids: ids, phase: "IDLE" };
    writeFileSync(path.join(dir, id, "metadata.json"), JSON.stringify(meta, null, 2));
    writeFileSync(path.join(dir, id, "messages.json"), JSON.stringify({ id, title, created_at: created.iso, updated_at: updated.iso, messages: messages(r, LEADER_MESSAGES, startMs, "leader", 0), metadata: {}, token_statistics: {} }, null, 2));
    index[id] = { title, created_at: created.iso, updated_at: updated.iso, agent_count: AGENTS };
    last = id;
  }
  writeFileSync(path.join(dir, "index.json"), JSON.stringify(index, null, 2));
  const now = stamp(new Date()).iso;
  writeFileSync(path.join(home, "state.json"), JSON.stringify({ version: "1.0", last_conversation_id: last, agent_id_counter: agentId, created_at: now, updated_at: now }, null, 2));
}

const QUERIES = [
  ["common word", { q: "review" }],
  ["two common words", { q: "deploy rollback" }],
  ["phrase", { q: '"atomic rename"' }],
  ["typed prefix", { q: "kubern" }],
  ["rare word", { q: "src/module4242.ts" }],
  ["chinese", { q: "原子写入" }],
  ["miss", { q: "no such words anywhere" }],
  ["filter status=archived", { q: "review", status: "archived" }],
  ["filter agent=leader", { q: "review", agent: "leader" }],
  ["filter one agent", { q: "review", agent: "777" }],
  ["filter role", { q: "deploy rollback", role: "technical-writer" }],
  ["filter model", { q: "review", model: "qwen3-max" }],
  ["filter message_role", { q: "review", message_role: "assistant" }],
  ["filter one month", { q: "review", from: "2025-06-01", to: "2025-06-30" }],
  ["all filters", { q: "deploy", status: "active", role: "researcher", model: "offline", message_role: "user", from: "2025-03-01", to: "2025-09-30" }],
];

async function health(port) {
  return (await request(port, "GET", "/api/health")).json;
}

async function ready(port) {
  for (;;) {
    const h = await health(port);
    if (h.search?.state === "ready") return h;
    if (h.search?.state === "failed") throw new Error(`search index failed: ${h.search.error}`);
    await sleep(500);
  }
}

/** Runs the search measurements and returns their figures. */
export async function benchSearch() {
  const home = tempDir("astrion-bench-search-");
  const project = tempDir("astrion-bench-search-project-");
  let server;
  try {
    process.stderr.write(`[bench search] writing ${CONVERSATIONS} conversations\n`);
    const seeded = await timed(async () => seedDataFolder(home, project));
    process.stderr.write("[bench search] starting the server (it rebuilds the index)\n");
    const boot = await timed(() => startServer({ home }));
    server = boot.result;
    const built = await timed(() => ready(server.port));
    const report = built.result.search;
    const queries = {};
    for (const [name, params] of QUERIES) {
      const p = `/api/search?${new URLSearchParams({ ...params, limit: "20" }).toString()}`;
      for (let k = 0; k < 3; k++) await request(server.port, "GET", p);
      const ms = [];
      let last;
      for (let k = 0; k < SAMPLES; k++) {
        const { ms: t, result } = await timed(() => request(server.port, "GET", p));
        if (result.status !== 200) throw new Error(`${p}: ${result.status} ${JSON.stringify(result.json).slice(0, 300)}`);
        ms.push(t);
        last = result.json;
      }
      queries[name] = { params, hits_on_page: last.hits.length, has_more: last.has_more, ...stats(ms) };
    }
    const db = path.join(home, "search", "history.sqlite");
    const size = statSync(db).size + (statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0);
    await server.stop();
    process.stderr.write("[bench search] restarting on the same folder\n");
    const again = await timed(() => startServer({ home }));
    server = again.result;
    const after = await ready(server.port);
    const medians = Object.values(queries).map((q) => q.median);
    return {
      search: {
        method:
          `${CONVERSATIONS} conversations × ${LEADER_MESSAGES + AGENTS * AGENT_MESSAGES} messages (leader ${LEADER_MESSAGES}, ${AGENTS} sub-agents × ${AGENT_MESSAGES}) written as seed files before the server starts, no search database: ` +
          "the server rebuilds it from the files (rebuild_ms: as the server measured it, in the background while it serves). Each query: " +
          `${SAMPLES} GET /api/search?limit=20 over HTTP on loopback after 3 warm-up ones (milliseconds, the whole request). restart: the server started again on the same folder.`,
        messages_indexed: report.messages,
        conversations_indexed: report.conversations,
        seed_files_written_ms: Math.round(seeded.ms),
        server_start_ms: Math.round(boot.ms),
        rebuild_ms: report.rebuilds[0]?.ms ?? null,
        rebuild_wait_after_start_ms: Math.round(built.ms),
        database_mb: +(size / 1e6).toFixed(1),
        slowest_query_median_ms: Math.max(...medians),
        queries,
        restart: { server_start_ms: Math.round(again.ms), rebuilds: after.search.rebuilds.length, conversations_found_behind: after.search.reconciled },
      },
    };
  } catch (error) {
    if (server) error.message += `\n--- server output (tail) ---\n${server.output().slice(-4000)}`;
    throw error;
  } finally {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
