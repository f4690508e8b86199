#!/usr/bin/env node
/**
 * `npm run bench`: drives the real built server over HTTP on loopback with a temporary data
 * folder and prints JSON figures (milliseconds): creating conversations, listing the index as it
 * grows, listing a role library of the 202 corpus roles, and saving one role field.
 * Request loops are bounded; nothing leaves this machine.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const corpus = path.resolve(root, "..", "shared", "corpus", "roles");

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function request(port, method, p, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers = { "content-type": "application/json" };
    if (data) headers["content-length"] = Buffer.byteLength(data);
    const r = http.request({ host: "127.0.0.1", port, method, path: p, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode, json: JSON.parse(Buffer.concat(chunks).toString() || "null") }));
    });
    r.on("error", reject);
    if (data) r.write(data);
    r.end();
  });
}

async function timed(fn) {
  const t = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, result };
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, median: +q(0.5).toFixed(2), p95: +q(0.95).toFixed(2), max: +s[s.length - 1].toFixed(2) };
}

const home = mkdtempSync(path.join(os.tmpdir(), "astrion-bench-"));
const project = mkdtempSync(path.join(os.tmpdir(), "astrion-bench-project-"));
const port = await freePort();
const server = spawn(process.execPath, [path.join(root, "scripts", "start.mjs")], {
  cwd: root,
  env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", ASTRION_HOME: home },
  stdio: ["ignore", "ignore", "inherit"],
  detached: true,
});

try {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      if ((await request(port, "GET", "/api/health")).status === 200) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error("server did not start");
    await new Promise((r) => setTimeout(r, 200));
  }
  // Warm every route once so compilation and first-load costs are not measured.
  await request(port, "GET", "/api/conversations");
  await request(port, "GET", "/api/roles");

  const create = [];
  const listAt = {};
  for (let i = 1; i <= 500; i++) {
    const { ms, result } = await timed(() => request(port, "POST", "/api/conversations", { title: `Bench ${i}`, project_path: project }));
    if (result.status !== 201) throw new Error(`create failed: ${JSON.stringify(result.json)}`);
    create.push(ms);
    if ([10, 100, 500].includes(i)) {
      const samples = [];
      for (let k = 0; k < 20; k++) samples.push((await timed(() => request(port, "GET", "/api/conversations?limit=20"))).ms);
      listAt[`${i}_conversations`] = stats(samples);
    }
  }

  const files = readdirSync(corpus).filter((f) => f.endsWith(".md") && f !== "SOURCE.md");
  for (const f of files) {
    const r = await request(port, "POST", "/api/roles/import", { content: readFileSync(path.join(corpus, f), "utf8"), file_name: f });
    if (r.status !== 201) throw new Error(`import ${f} failed: ${JSON.stringify(r.json)}`);
  }
  const roleList = [];
  let roleCount = 0;
  for (let k = 0; k < 20; k++) {
    const { ms, result } = await timed(() => request(port, "GET", "/api/roles"));
    roleList.push(ms);
    roleCount = result.json.roles.length;
  }

  const target = files[0].replace(/\.md$/, "");
  const save = [];
  for (let k = 0; k < 50; k++) {
    const got = await request(port, "GET", `/api/roles/${target}`);
    const fields = { ...got.json.role.fields };
    delete fields.id;
    const { ms } = await timed(() =>
      request(port, "PUT", `/api/roles/${target}`, { etag: got.json.role.etag, fields: { ...fields, description: `Bench ${k}` }, body: got.json.role.body }),
    );
    save.push(ms);
  }

  console.log(
    JSON.stringify(
      {
        machine: { cpus: os.cpus().length, node: process.version },
        create_conversation_ms: stats(create),
        list_conversations_page_ms: listAt,
        list_roles_ms: { roles: roleCount, ...stats(roleList) },
        save_role_field_ms: stats(save),
      },
      null,
      2,
    ),
  );
} finally {
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {
    /* gone */
  }
  await new Promise((r) => setTimeout(r, 500));
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
}
