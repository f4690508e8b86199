/**
 * The engine names no implementation of its ports: it knows its conversations' storage as
 * EngineStorage and ConversationLifecycle, its messages as the bus port, and its tools as objects
 * from the providers it is given (lib/runtime/team/ports.ts, tool-kit.ts). Which implementation
 * each part has (the file store and its journal, the in-process bus) only the composition root
 * (lib/server) says. Read on the engine's production sources: an import of an implementation, or
 * its name, fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const RUNTIME = path.resolve(__dirname);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [full] : [];
  });
}

/** The file store, its journal and its adapter, and the in-process bus: named only by the composition root. */
const IMPLEMENTATIONS = /\b(ConversationStore|EventBus|ActionJournal|fileStorage|fileLifecycle|StepLog|LiveConversation)\b/;
const IMPLEMENTATION_MODULES = /from "@\/lib\/(store\/(conversation-store|step-log|live-[\w-]+|action-journal|conversation-files|leader-files|agent-files)|bus\/bus|server\/[\w-]+)"/;
/** The one engine module with a file of its own outside the ports: memory distillation's progress (given by the root, ./team/distilled-progress.ts). */
const OWN_FILE_IO = /from "@\/lib\/store\/(atomic|files|jsonl)"/;

describe("the engine", () => {
  const files = sources(RUNTIME);

  it("is read in full (the scan sees the engine's files)", () => {
    expect(files.map((f) => path.relative(RUNTIME, f))).toEqual(expect.arrayContaining(["engine.ts", "team-run.ts", "team/state.ts", "team/pipeline.ts", "tool-providers/index.ts"]));
  });

  it("names no implementation of its storage or bus, and imports none", () => {
    const named = files.flatMap((f) => {
      const text = readFileSync(f, "utf8");
      return [IMPLEMENTATIONS.exec(text)?.[0], IMPLEMENTATION_MODULES.exec(text)?.[0]].filter(Boolean).map((hit) => `${path.relative(RUNTIME, f)}: ${hit}`);
    });
    expect(named).toEqual([]);
  });

  it("does file I/O of its own only for memory distillation's progress", () => {
    const own = files.filter((f) => OWN_FILE_IO.test(readFileSync(f, "utf8"))).map((f) => path.relative(RUNTIME, f));
    expect(own).toEqual(["team/distilled-progress.ts"]);
  });
});
