/**
 * Projects a new user would point the offline team at, generated for its tests: an npm package
 * whose code is only under `dist/` (about 640 files, like `@langchain/langgraph`), a monorepo
 * with `packages/*​/src`, a Python project, and a 4-file project with `test.js`. Each carries
 * what must be read last or never (node_modules, a lockfile, a minified bundle, a virtualenv).
 * Plus {@link checkReport}: every claim of an offline report checked against the files.
 */

/** An npm package shipped built: README, package.json, LICENSE, and about 640 files under dist/. */
export function npmDistProject(): Record<string, string> {
  const files: Record<string, string> = {
    "README.md": "# Acme Graph\n\nBuild stateful, multi-actor applications as graphs of steps.\n\n## Install\n\nnpm install @acme/graph\n",
    "package.json": JSON.stringify(
      {
        name: "@acme/graph",
        version: "0.4.1",
        description: "Stateful graphs of steps",
        main: "./dist/index.cjs",
        module: "./dist/index.js",
        exports: { ".": { types: "./dist/index.d.ts", import: "./dist/index.js", require: "./dist/index.cjs" }, "./pregel": { import: "./dist/pregel/index.js" } },
        scripts: { test: "node --test" },
        dependencies: { uuid: "^10.0.0" },
      },
      null,
      2,
    ),
    LICENSE: "MIT License\n\nCopyright (c) Acme\n",
    "package-lock.json": JSON.stringify({ name: "@acme/graph", lockfileVersion: 3, packages: {} }),
    "dist/index.js": '/** The public entry of @acme/graph. */\nexport { StateGraph } from "./graph/state.js";\nexport { Pregel } from "./pregel/index.js";\nexport { Channel } from "./channels/base.js";\n',
    "dist/index.cjs": '"use strict";\nconst state = require("./graph/state.cjs");\nexports.StateGraph = state.StateGraph;\n',
    "dist/index.d.ts": 'export { StateGraph } from "./graph/state.js";\n',
    "dist/graph/state.js": '/** A graph whose nodes read and write one shared state. */\nimport { Pregel } from "../pregel/index.js";\nimport { Channel } from "../channels/base.js";\n\nexport class StateGraph {\n  constructor(schema) {\n    this.schema = schema;\n    this.channels = new Map();\n  }\n\n  addNode(name, fn) {\n    this.channels.set(name, new Channel(name));\n    return this;\n  }\n\n  compile() {\n    return new Pregel(this.channels);\n  }\n}\n',
    "dist/graph/state.cjs": '"use strict";\nclass StateGraph {}\nexports.StateGraph = StateGraph;\n',
    "dist/pregel/index.js": '/** Runs a compiled graph step by step (the Pregel model). */\nimport { Channel } from "../channels/base.js";\n\nexport class Pregel {\n  constructor(channels) {\n    this.channels = channels;\n  }\n\n  async invoke(input) {\n    return { input, steps: this.channels.size };\n  }\n}\n',
    "dist/channels/base.js": '/** A named channel that carries values between nodes. */\nexport class Channel {\n  constructor(name) {\n    this.name = name;\n  }\n}\n',
    "dist/web.min.js": `export class StateGraph{constructor(t){this.s=t}}${"var a=1;".repeat(400)}\n`,
    "node_modules/uuid/package.json": JSON.stringify({ name: "uuid", main: "index.js" }),
    "node_modules/uuid/index.js": "export function v4() { return 'x'; }\n",
  };
  for (let i = 0; i < 620; i++) {
    files[`dist/utils/helper-${String(i).padStart(3, "0")}.js`] = `/** Helper ${i}. */\nimport { Channel } from "../channels/base.js";\n\nexport function helper${i}(name) {\n  return new Channel(name);\n}\n`;
  }
  return files;
}

/** A workspace of three packages, each with `src/` (and tests in one). */
export function monorepoProject(): Record<string, string> {
  return {
    "README.md": "# Acme Monorepo\n\nThe Acme engine, its command line and its web front end, in one workspace.\n",
    "package.json": JSON.stringify({ name: "acme-mono", private: true, workspaces: ["packages/*"], scripts: { test: "node run-tests.js", build: "node build.js" } }, null, 2),
    "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    "packages/core/package.json": JSON.stringify({ name: "@acme/core", main: "src/index.ts" }, null, 2),
    "packages/core/src/index.ts": '/** The Acme engine: schedules and runs jobs. */\nexport { Engine } from "./engine";\nexport { Scheduler } from "./scheduler";\n',
    "packages/core/src/engine.ts": '/** Runs one job at a time. */\nimport { Scheduler } from "./scheduler";\n\nexport class Engine {\n  private scheduler = new Scheduler();\n\n  run(job: string): string {\n    return this.scheduler.next(job);\n  }\n}\n',
    "packages/core/src/scheduler.ts": "/** Orders the jobs. */\nexport class Scheduler {\n  next(job: string): string {\n    return job;\n  }\n}\n",
    "packages/core/test/engine.test.ts": 'import { Engine } from "../src/engine";\n\ntest("runs a job", () => {\n  new Engine().run("a");\n});\n',
    "packages/cli/package.json": JSON.stringify({ name: "@acme/cli", bin: { acme: "src/cli.ts" } }, null, 2),
    "packages/cli/src/cli.ts": '/** The `acme` command line. */\nimport { Engine } from "../../core/src/engine";\n\nexport function main(argv: string[]): void {\n  new Engine().run(argv[0] ?? "default");\n}\n',
    "packages/web/package.json": JSON.stringify({ name: "@acme/web", main: "src/app.tsx" }, null, 2),
    "packages/web/src/app.tsx": '/** The web front end. */\nimport { Engine } from "../../core/src/engine";\n\nexport function App() {\n  return new Engine().run("web");\n}\n',
    "node_modules/react/index.js": "module.exports = {};\n",
  };
}

/** A Python package with a console script, `__main__.py`, tests and a virtualenv. */
export function pythonProject(): Record<string, string> {
  return {
    "README.md": "# Ledger\n\nKeeps accounts in an append-only journal.\n",
    "pyproject.toml": '[project]\nname = "ledger"\nversion = "1.0.0"\n\n[project.scripts]\nledger = "ledger.cli:main"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    "ledger/__init__.py": '"""Keeps accounts in an append-only journal."""\nfrom .core import Ledger\n',
    "ledger/__main__.py": "from .cli import main\n\nmain()\n",
    "ledger/core.py": '"""The ledger: accounts and their entries."""\nfrom .storage import Journal\n\n\nclass Ledger:\n    def __init__(self):\n        self.journal = Journal()\n\n    def add(self, account, amount):\n        self.journal.append((account, amount))\n',
    "ledger/cli.py": '"""The ledger command line."""\nimport argparse\nfrom .core import Ledger\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n    parser.parse_args()\n    Ledger()\n',
    "ledger/storage.py": '"""Where entries are kept."""\n\n\nclass Journal(list):\n    pass\n',
    "tests/test_core.py": "from ledger.core import Ledger\n\n\ndef test_add():\n    Ledger().add('cash', 1)\n",
    "tests/conftest.py": "import pytest\n",
    ".venv/lib/site.py": "x = 1\n",
  };
}

/** Four files, one of them `test.js`; `npm test` passes or fails as `pass` says. */
export function tinyProject(pass = true): Record<string, string> {
  return {
    "README.md": "# Tiny\n\nAdds numbers.\n",
    "package.json": JSON.stringify({ name: "tiny", version: "1.0.0", scripts: { test: "node test.js" } }, null, 2),
    "index.js": "/** Adds two numbers. */\nfunction add(a, b) {\n  return a + b;\n}\nmodule.exports = { add };\n",
    "test.js": `const { add } = require("./index.js");\nif (add(1, 2) !== ${pass ? 3 : 4}) {\n  console.error("add is wrong");\n  process.exit(1);\n}\nconsole.log("1 test passed");\n`,
  };
}

/** Why a claim of `report` does not hold for `files` (empty when every claim holds). */
export function checkReport(report: string, files: Readonly<Record<string, string>>): string[] {
  const problems: string[] = [];
  const lineOf = (path: string, n: number) => files[path]?.split("\n")[n - 1];
  const normal = (x: string) => x.replace(/["`“”]/g, "'").toLowerCase();
  for (const bullet of report.split("\n")) {
    const query = /Search for "([^"]+)"|搜索“([^”]+)”/.exec(bullet);
    const refs = [...bullet.matchAll(/`([^`\s]+\.[A-Za-z0-9]+):(\d+)`/g)];
    for (const m of refs) {
      const [cite, path, n] = [m[0], m[1]!, Number(m[2])];
      const line = lineOf(path, n);
      if (line === undefined) {
        problems.push(`${cite} does not exist (${bullet})`);
        continue;
      }
      const before = bullet.slice(0, m.index);
      const after = bullet.slice(m.index! + cite.length);
      const name = /`([^`]+)`\s*[(（]$/.exec(before)?.[1];
      const imported = /`([^`]+)`[^`]*(?:by \d+ files? \(e\.g\.|被 \d+ 个文件导入（例如)\s*$/.exec(before)?.[1];
      const said = /^\s*(?:[^"“]{0,80}?)"([^"]+)"/.exec(after)?.[1];
      const holds = query
        ? normal(line).includes(normal(query[1] ?? query[2]!))
        : imported
          ? normal(line).includes(normal(imported.split("/").pop()!))
          : name
            ? line.includes(name)
            : said
              ? normal(line).includes(normal(said.split("…")[0]!).trim())
              : null;
      if (holds === null) {
        // a recommendation pointing back at a line the findings cite: it must be cited with a claim there
        if (report.split(cite).length < 3) problems.push(`${cite} is cited with no claim to check (${bullet})`);
      } else if (!holds) problems.push(`${cite} does not hold what the report says (${bullet}) — the line is: ${line}`);
    }
    // every file the report names exists
    for (const m of bullet.matchAll(/`([\w@.-]+(?:\/[\w@.[\]-]+)+\.[A-Za-z0-9]+|[\w-]+\.(?:md|json|js|cjs|ts|tsx|py|toml|yaml))`/g)) {
      if (!Object.hasOwn(files, m[1]!)) problems.push(`\`${m[1]}\` is not a file of the project (${bullet})`);
    }
  }
  if (/Review the (remaining|files not read yet)[^\n]*README/i.test(report)) problems.push("suggests reading the README after reading it");
  if (/folders none noted|no folders/.test(report) && Object.keys(files).some((f) => f.includes("/"))) problems.push("says there are no folders");
  if (/CONCLUSION:|NOTE:|of at most \d+/.test(report)) problems.push("an internal marker line");
  return problems;
}
