/**
 * The conversation index at 100 and at 10,000 conversations. Creating 10,000 conversations over
 * HTTP would take most of the bench's time, so each data folder is written directly on disk in
 * the seed's format (every conversation's metadata.json and messages.json, index.json, state.json)
 * before its server starts; then, over HTTP on loopback: one page of the index, searches by title
 * and by project folder (a match, and a miss that scans everything), and creating a conversation
 * (which rewrites index.json). The server's start (index load from every metadata.json, and the
 * resume of every active conversation) is timed too: that is where the cost of size now sits.
 *
 * The seed's index.json is one whole file, so a conversation change that touches one of its
 * fields rewrites all of it. That cost is measured as the server measures it (`index` of
 * /api/health: serializing and writing index.json durably) after each of 10 renames, and over a
 * whole conversation run with the offline model: how many of the run's metadata changes rewrote
 * index.json (each leader message moves the conversation's `updated_at`, whole seconds) and how
 * long those rewrites took — time the run waited, since a change returns once index.json holds it.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { finished, newConversation, post } from "./conversation.mjs";
import { request, startServer, stats, tempDir, timed } from "./lib.mjs";

const SIZES = [100, 10_000];
const SAMPLES = 30;
const FOLDERS = 50;
const TOPICS = ["kubernetes", "billing", "onboarding", "设计前端", "search", "payments", "docs", "release", "migration", "auth", "metrics", "mobile", "报表"];

const pad = (n, w = 2) => String(n).padStart(w, "0");
/** Local ISO time without a zone, and the id prefix, of `date`. */
function stamp(date) {
  const d = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const t = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return { iso: `${d}T${t}`, id: `conv_${d.replaceAll("-", "")}_${t.replaceAll(":", "")}` };
}

/** Writes `n` conversations, index.json and state.json in the seed's format under `home`. */
function seedDataFolder(home, projects, n) {
  const dir = path.join(home, "conversations");
  mkdirSync(dir, { recursive: true });
  const index = {};
  const base = new Date(2026, 0, 1, 9, 0, 0).getTime();
  let last = null;
  for (let i = 0; i < n; i++) {
    const created = stamp(new Date(base + i * 60_000));
    const updated = stamp(new Date(base + i * 60_000 + ((i * 7919) % 600_000)));
    const id = `${created.id}_001`;
    const title = `${TOPICS[i % TOPICS.length]} review ${i}`;
    const meta = {
      id,
      title,
      created_at: created.iso,
      updated_at: updated.iso,
      project_path: path.join(projects, `repo-${i % FOLDERS}`),
      model_key: "offline",
      thinking_mode: false,
      run_mode: "fast",
      status: i % 10 === 9 ? "archived" : "active",
      agent_count: 0,
      agent_ids: [],
      phase: "IDLE",
    };
    mkdirSync(path.join(dir, id));
    writeFileSync(path.join(dir, id, "metadata.json"), JSON.stringify(meta, null, 2));
    writeFileSync(
      path.join(dir, id, "messages.json"),
      JSON.stringify({ id, title, created_at: created.iso, updated_at: updated.iso, messages: [], metadata: {}, token_statistics: {} }, null, 2),
    );
    index[id] = { title, created_at: created.iso, updated_at: updated.iso, agent_count: 0 };
    last = id;
  }
  writeFileSync(path.join(dir, "index.json"), JSON.stringify(index, null, 2));
  const now = stamp(new Date()).iso;
  writeFileSync(path.join(home, "state.json"), JSON.stringify({ version: "1.0", last_conversation_id: last, agent_id_counter: 0, created_at: now, updated_at: now }, null, 2));
}

async function sample(port, p, check) {
  for (let k = 0; k < 5; k++) await request(port, "GET", p);
  const ms = [];
  let last;
  for (let k = 0; k < SAMPLES; k++) {
    const { ms: t, result } = await timed(() => request(port, "GET", p));
    if (result.status !== 200) throw new Error(`${p}: ${result.status} ${JSON.stringify(result.json).slice(0, 300)}`);
    ms.push(t);
    last = result.json;
  }
  check?.(last);
  return { total: last.total, items: last.items.length, ...stats(ms) };
}

async function measure(n) {
  const home = tempDir("astrion-bench-index-");
  const projects = tempDir("astrion-bench-index-projects-");
  for (let f = 0; f < FOLDERS; f++) mkdirSync(path.join(projects, `repo-${f}`));
  let server;
  try {
    const seeded = await timed(async () => seedDataFolder(home, projects, n));
    const boot = await timed(() => startServer({ home }));
    server = boot.result;
    const { port } = server;
    const health = (await request(port, "GET", "/api/health")).json;
    const indexLoad = /conversation index: (\d+) conversation\(s\) loaded from metadata\.json in (\d+) ms/.exec(server.output());
    const out = {
      conversations: n,
      seed_files_on_disk_ms: Math.round(seeded.ms),
      server_start_ms: Math.round(boot.ms),
      index_load_at_start_ms: indexLoad ? Number(indexLoad[2]) : null,
      health_problems: health.problems.length,
      page_ms: await sample(port, "/api/conversations?limit=20", (j) => {
        if (j.items.length !== 20) throw new Error(`a page of ${n} held ${j.items.length} items`);
      }),
      search_title_ms: await sample(port, `/api/conversations?q=${encodeURIComponent(TOPICS[3])}&status=all`),
      search_folder_ms: await sample(port, "/api/conversations?q=repo-7&status=all", (j) => {
        if (j.total !== Math.ceil((n - 7) / FOLDERS)) throw new Error(`folder search found ${j.total}`);
      }),
      search_miss_ms: await sample(port, "/api/conversations?q=no%20such%20words&status=all"),
    };
    const create = [];
    for (let k = 0; k < 10; k++) {
      const { ms, result } = await timed(() => request(port, "POST", "/api/conversations", { title: `New ${k}`, project_path: path.join(projects, "repo-0") }));
      if (result.status !== 201) throw new Error(`create failed: ${JSON.stringify(result.json)}`);
      create.push(ms);
    }
    out.create_conversation_ms = stats(create);
    Object.assign(out, await measureRewrites(port, projects));
    return out;
  } catch (error) {
    if (server) error.message += `\n--- server output (tail) ---\n${server.output().slice(-4000)}`;
    throw error;
  } finally {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(projects, { recursive: true, force: true });
  }
}

/** The server's index report (`index` of /api/health). */
async function indexReport(port) {
  const health = await request(port, "GET", "/api/health");
  if (!health.json?.index) throw new Error(`/api/health has no index report: ${JSON.stringify(health.json).slice(0, 300)}`);
  return health.json.index;
}

/** The cost of index.json rewrites: per rename (one rewrite each), and over one offline conversation run. */
async function measureRewrites(port, projects) {
  const page = await request(port, "GET", "/api/conversations?limit=1");
  const target = page.json.items[0].id;
  const rename = [];
  const rewrite = [];
  let bytes = 0;
  for (let k = 0; k < 10; k++) {
    const before = (await indexReport(port)).writes;
    const { ms, result } = await timed(() => request(port, "PATCH", `/api/conversations/${target}`, { title: `Renamed ${k}` }));
    if (result.status !== 200) throw new Error(`rename failed: ${JSON.stringify(result.json)}`);
    const after = await indexReport(port);
    if (after.writes !== before + 1) throw new Error(`a rename made ${after.writes - before} index.json rewrites, not 1`);
    rename.push(ms);
    rewrite.push(after.last_write.ms);
    bytes = after.last_write.bytes;
  }

  const repo = path.join(projects, "repo-run");
  mkdirSync(path.join(repo, "src"), { recursive: true });
  writeFileSync(path.join(repo, "README.md"), "# Demo\n\nA small project for the offline model.\n");
  writeFileSync(path.join(repo, "src", "app.ts"), "export const answer = 42;\n");
  const id = await newConversation(port, "Index rewrite run", repo);
  const before = await indexReport(port);
  const started = performance.now();
  await post(port, id, "Review the TypeScript module src/app.ts for correctness bugs in the exported answer constant");
  const run = await finished(port, id);
  const runMs = performance.now() - started;
  const after = await indexReport(port);
  const rewrites = after.writes - before.writes;
  return {
    index_json_rewrite: { bytes, server_ms: stats(rewrite) },
    rename_conversation_ms: stats(rename),
    offline_run: {
      wall_ms: Math.round(runMs),
      leader_messages: run.messages,
      agents: run.agents.length,
      metadata_changes: rewrites + (after.unchanged - before.unchanged),
      index_json_rewrites: rewrites,
      index_json_rewrite_ms_total: +(after.write_ms_total - before.write_ms_total).toFixed(2),
    },
  };
}

/** Runs the index measurements at 100 and 10,000 conversations and returns their figures. */
export async function benchIndex() {
  const at = {};
  for (const n of SIZES) {
    process.stderr.write(`[bench index] ${n} conversations\n`);
    at[`${n}_conversations`] = await measure(n);
  }
  const small = at["100_conversations"];
  const large = at["10000_conversations"];
  return {
    conversation_index: {
      method:
        `Data folders written in the seed's format before the server starts (10% archived, ${FOLDERS} project folders, ${TOPICS.length} title topics); ` +
        `each figure: ${SAMPLES} GET requests after 5 warm-up ones, over HTTP on loopback. page: default list (active, 20 items). ` +
        `search_title: a title word (~1 in ${TOPICS.length}); search_folder: a project folder (1 in ${FOLDERS}); search_miss: no match (scans every row). ` +
        "server_start_ms: spawn → /api/health answers (loads the index from every metadata.json, resumes every active conversation); " +
        "index_load_at_start_ms: the index load alone, as the server logs it. " +
        "index_json_rewrite: one whole-file rewrite of index.json (serialize + atomic durable write) as the server timed it after each of 10 renames; " +
        "rename_conversation_ms: the PATCH that caused it, over HTTP. offline_run: one conversation run with the offline model — its metadata changes, " +
        "how many rewrote index.json (one of its fields changed: a new second in updated_at, the agent count) and the time those rewrites took, which the run waited for.",
      page_10000_vs_100: +(large.page_ms.median / small.page_ms.median).toFixed(2),
      search_at_10000_median_ms: { title: large.search_title_ms.median, folder: large.search_folder_ms.median, miss: large.search_miss_ms.median },
      index_json_rewrite_at_10000: { bytes: large.index_json_rewrite.bytes, median_ms: large.index_json_rewrite.server_ms.median, rewrites_in_one_offline_run: large.offline_run.index_json_rewrites },
      ...at,
    },
  };
}
