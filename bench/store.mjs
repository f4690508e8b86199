/**
 * Store and role figures (milliseconds), on a server of its own: creating conversations, listing
 * the index as it grows, listing a role library of the 202 corpus roles, and saving one role field.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { ROOT, request, startServer, stats, tempDir, timed } from "./lib.mjs";

const corpus = path.resolve(ROOT, "..", "shared", "corpus", "roles");

/** Runs the store and role measurements and returns their figures. */
export async function benchStore() {
  const home = tempDir("astrion-bench-");
  const project = tempDir("astrion-bench-project-");
  let server;
  try {
    server = await startServer({ home });
    const { port } = server;
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

    return {
      create_conversation_ms: stats(create),
      list_conversations_page_ms: listAt,
      list_roles_ms: { roles: roleCount, ...stats(roleList) },
      save_role_field_ms: stats(save),
    };
  } finally {
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
