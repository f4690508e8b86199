/**
 * Every notice the runtime makes, rendered in a zh-CN page, is Chinese apart from names, paths
 * and identifiers: one representative notice per text (`notice.msg.…`), made as the runtime makes
 * it (./notice.ts `makeNotice`, with the server's English detail where the runtime has one), and
 * every reason (lib/contracts/events.ts `NOTICE_REASONS`) worded in both languages.
 */
import { describe, expect, it } from "vitest";
import { NOTICE_REASONS, type Notice } from "@/lib/contracts/events";
import { CorruptFileError } from "@/lib/contracts/errors";
import { noticeText } from "@/lib/client/notices";
import { en } from "@/lib/i18n/dictionaries/en";
import { zhCN } from "@/lib/i18n/dictionaries/zh-cn";
import { makeTranslator } from "@/lib/i18n/translate";
import { makeNotice, type NoticeExtras, type NoticeKey, type NoticeParams } from "./notice";
import { faultReason, faultSummary } from "./tool-failure";

interface Sample {
  code: string;
  key: NoticeKey;
  params: NoticeParams;
  agentId?: number;
  extras?: NoticeExtras;
}

const MODEL_DETAIL = 'Could not reach http://127.0.0.1:9/v1 for model "dead" (ECONNREFUSED) after 4 attempts.';

/** One notice per text, with the params its producer gives (grep `notice.msg.` in lib/runtime). */
const SAMPLES: Sample[] = [
  { code: "mcp_unavailable", key: "notice.msg.mcpUnavailable", params: { server: "filesystem", reason: "mcp_start_failed" }, agentId: 2, extras: { detail: "MCP server filesystem could not start: spawn npx ENOENT" } },
  { code: "mcp_tool_skipped", key: "notice.msg.mcpToolSkipped", params: { server: "github", tool: "create.issue" }, agentId: 2 },
  { code: "memory_failed", key: "notice.msg.memoryFailed", params: { reason: "fault_disk_full" }, extras: { detail: "ENOSPC: no space left on device, write" } },
  { code: "model_server_flag", key: "notice.msg.leaderServerFlag", params: { agent: "", model: "local-qwen", server: "llama.cpp", flag: "--jinja" } },
  { code: "model_server_flag", key: "notice.msg.agentServerFlag", params: { agent: 3, model: "local-qwen", server: "vLLM", flag: "--enable-auto-tool-choice" }, agentId: 3 },
  { code: "cap_calls", key: "notice.msg.leaderCallCap", params: { cap: 30 } },
  { code: "cap_calls", key: "notice.msg.agentCallCap", params: { agent: "测试工程师_3", cap: 30 }, agentId: 3 },
  { code: "model_error", key: "notice.msg.leaderNoModel", params: { model: "qwen3-max", reason: "no_model" }, extras: { detail: 'Model "qwen3-max" has no API key' } },
  { code: "model_error", key: "notice.msg.agentNoModel", params: { agent: 2, model: "qwen3-max", reason: "no_model" }, agentId: 2, extras: { detail: 'Model "qwen3-max" has no API key' } },
  { code: "model_error", key: "notice.msg.leaderModelFailed", params: { model: "dead", reason: "network" }, extras: { detail: MODEL_DETAIL } },
  { code: "model_error", key: "notice.msg.agentModelFailed", params: { agent: 2, model: "dead", reason: "rate_limited" }, agentId: 2, extras: { detail: MODEL_DETAIL } },
  { code: "cap_spawn", key: "notice.msg.spawnRefused", params: { agent: 2 }, agentId: 2 },
  { code: "token_narrowed", key: "notice.msg.tokenNarrowed", params: { role: "test-engineer", agent: 2, scopes: "project:read, message:leader" }, agentId: 2 },
  { code: "interrupted", key: "notice.msg.leaderInterrupted", params: { tool: "create_sub_agent" } },
  { code: "approval_needed", key: "notice.msg.approvalNeeded", params: { agent: "开发者_1", tool: "npm test" }, agentId: 1 },
  { code: "interrupted", key: "notice.msg.agentInterrupted", params: { agent: 2, tool: "run_command" }, agentId: 2 },
  { code: "project_refused", key: "notice.msg.projectNoTools", params: { reason: "project_not_found", path: "/home/me/gone", folder: "" }, extras: { detail: "/home/me/gone does not exist" } },
  { code: "project_refused", key: "notice.msg.projectCannotRun", params: { reason: "project_inside_data_folder", path: "/home/me/.astrion/x", folder: "/home/me/.astrion" }, extras: { detail: "This folder is inside Astrion's own data folder (/home/me/.astrion)" } },
  { code: "project_refused", key: "notice.msg.projectNotResumed", params: { reason: "project_changed", path: "/home/me/app", recorded: "/etc" }, extras: { detail: "this conversation's metadata.json names the project folder" } },
  { code: "cap_agents", key: "notice.msg.agentCap", params: { max: 8 } },
  { code: "cap_role", key: "notice.msg.roleCap", params: { role: "Test Engineer", max: 2 } },
  { code: "cap_agents", key: "notice.msg.abilityCapped", params: { agent: "开发者_1", tool: "ability__review", role: "reviewer" }, agentId: 1 },
  { code: "model_fallback", key: "notice.msg.modelFallback", params: { role: "Test Engineer", model: "gpt-9", fallback: "qwen3-max" } },
  { code: "model_degraded", key: "notice.msg.modelDegradedFallback", params: { model: "dead", reason: "circuit_open", fallback: "offline" }, extras: { detail: MODEL_DETAIL } },
  { code: "model_degraded", key: "notice.msg.modelDegraded", params: { model: "dead", reason: "timeout" }, extras: { detail: MODEL_DETAIL } },
  { code: "model_recovered", key: "notice.msg.modelRecovered", params: { model: "dead" } },
  { code: "stopped", key: "notice.msg.stopped", params: {} },
  { code: "leader_failed", key: "notice.msg.leaderFailed", params: { reason: faultReason(new TypeError("x is undefined")) }, extras: { detail: faultSummary(new TypeError("x is undefined")) } },
  { code: "agent_failed", key: "notice.msg.agentFailed", params: { agent: 2, reason: faultReason(Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" })) }, agentId: 2, extras: { detail: "EACCES" } },
  { code: "role_missing", key: "notice.msg.roleMissing", params: { agent: "测试工程师_3", role: "test-engineer" }, agentId: 3 },
];

const made = (s: Sample): Notice => makeNotice("warning", s.code, s.key, s.params, s.agentId ?? null, s.extras ?? {}, "2026-11-30T10:00:00.000Z");

/** Latin-letter words left once names, paths and identifiers (`models.json`, `OPENAI_API_KEY`, `--jinja`, `project:read`, `MCP`, `Astrion`) are taken out. */
function englishWords(text: string, params: NoticeParams): string[] {
  let rest = text;
  for (const v of Object.values(params)) if (typeof v === "string" && v) rest = rest.split(v).join(" ");
  return (rest.match(/[A-Za-z][A-Za-z0-9_.:/'-]*/g) ?? []).filter((w) => !/[_.:/-]|\d/.test(w) && !/^[A-Z]+$/.test(w) && w !== "Astrion");
}

describe("every notice in a zh-CN page", () => {
  it("covers every notice text of the dictionaries", () => {
    const keys = Object.keys(en).filter((k) => k.startsWith("notice.msg."));
    expect(new Set(SAMPLES.map((s) => s.key))).toEqual(new Set(keys));
  });

  it("renders no English word but names, paths and identifiers, and never the server's detail", () => {
    const zh = makeTranslator("zh-CN");
    for (const s of SAMPLES) {
      const n = made(s);
      const text = noticeText(n, zh);
      expect(englishWords(text, s.params), `${s.key}: ${text}`).toEqual([]);
      expect(text, s.key).not.toMatch(/\{\w+\}/);
      if (n.detail) expect(text, s.key).not.toContain(n.detail);
      // The English text for logs and API clients is whole too.
      expect(n.message, s.key).not.toMatch(/\{\w+\}/);
    }
  });

  it("words every reason in both languages, with the same placeholders", () => {
    const holes = (t: string) => [...t.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const causes = Object.keys(en).filter((k) => k.startsWith("notice.cause."));
    expect(causes.sort()).toEqual(NOTICE_REASONS.map((r) => `notice.cause.${r}`).sort());
    for (const r of NOTICE_REASONS) {
      const k = `notice.cause.${r}` as keyof typeof en;
      expect(zhCN[k], k).toMatch(/[\u4e00-\u9fff]/);
      expect(holes(zhCN[k]), k).toEqual(holes(en[k]));
    }
  });

  it("keeps the English detail out of the params and the English text, in `detail`", () => {
    const n = made(SAMPLES.find((s) => s.key === "notice.msg.projectCannotRun")!);
    expect(n.message).toBe("This conversation cannot run: /home/me/.astrion/x is inside Astrion's own data folder (/home/me/.astrion); choose your project's own folder.");
    expect(noticeText(n, makeTranslator("zh-CN"))).toBe("本会话无法运行：/home/me/.astrion/x 位于 Astrion 自己的数据文件夹（/home/me/.astrion）之内；请选择你的项目自己的文件夹。");
    expect(n.detail).toContain("This folder is inside");
    expect(Object.values(n.params ?? {})).not.toContain(n.detail);
  });
});

describe("the kind of a fault", () => {
  it("is named by its errno code or its class, never by its message", () => {
    const errno = (code: string) => Object.assign(new Error(`${code}: something at /home/me/secret`), { code });
    expect(faultReason(errno("ENOSPC"))).toBe("fault_disk_full");
    expect(faultReason(errno("EACCES"))).toBe("fault_permission");
    expect(faultReason(errno("EROFS"))).toBe("fault_read_only");
    expect(faultReason(errno("ENOENT"))).toBe("fault_missing");
    expect(faultReason(errno("EMFILE"))).toBe("fault_too_many_files");
    expect(faultReason(errno("EIO"))).toBe("fault_io");
    expect(faultReason(errno("EXDEV"))).toBe("fault_internal");
    expect(faultReason(new CorruptFileError("memory/entries.jsonl", "does not parse"))).toBe("fault_corrupt");
    expect(faultReason(new TypeError("x is undefined"))).toBe("fault_internal");
    expect(faultReason("a string")).toBe("fault_internal");
  });
});
