"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { addMcpServer, ApiError, mcpServersQuery, removeMcpServer, saveMcpServer, testMcpServer } from "@/lib/client";
import { useT } from "@/lib/i18n";
import type { McpServerView, McpTestResult, McpToolInfo } from "@/lib/mcp/schema";
import { Banner } from "@/components/ui/banner";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { badgeClass, buttonDanger, buttonPrimary, buttonSecondary, cardClass, hintClass, inputClass, labelClass } from "@/components/ui/styles";
import { configFromForm, EMPTY_MCP_FORM, formFromView, type McpFormState } from "./mcp-form";

/** Settings → MCP servers: mcp.json's servers with their status and tools; add, edit, remove, test. */
export function McpServersSection() {
  const t = useT();
  const list = useQuery(mcpServersQuery());
  const [adding, setAdding] = useState(false);
  return (
    <section className={`${cardClass} p-5`} aria-labelledby="settings-mcp" data-testid="settings-mcp">
      <div className="flex items-center justify-between gap-3">
        <h2 id="settings-mcp" className="text-lg font-semibold">
          {t("settings.mcp.title")}
        </h2>
        {!adding ? (
          <button type="button" className={buttonSecondary} onClick={() => setAdding(true)} data-testid="mcp-add">
            {t("settings.mcp.add")}
          </button>
        ) : null}
      </div>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("settings.mcp.hint")}</p>
      {adding ? <McpServerForm initial={EMPTY_MCP_FORM} isNew onDone={() => setAdding(false)} /> : null}
      {list.isPending ? (
        <p className="mt-2 text-sm text-zinc-500">{t("common.loading")}</p>
      ) : list.isError ? (
        <div className="mt-2">
          <Banner tone="error">{t("common.loadFailed", { message: list.error.message })}</Banner>
        </div>
      ) : list.data.error ? (
        <div className="mt-2">
          <Banner tone="error" testId="mcp-file-error">
            {t("settings.mcp.fileError", { error: list.data.error })}
          </Banner>
        </div>
      ) : list.data.servers.length === 0 ? (
        <p className="mt-3 text-sm text-zinc-500" data-testid="mcp-none">
          {t("settings.mcp.none")}
        </p>
      ) : (
        <ul className="mt-3 space-y-3">
          {list.data.servers.map((s) => (
            <McpServerCard key={s.name} server={s} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ToolList({ tools }: { tools: McpToolInfo[] }) {
  const t = useT();
  return (
    <ul className="mt-1 space-y-1 text-sm" data-testid="mcp-tools">
      {tools.map((tool) => (
        <li key={tool.name} data-testid="mcp-tool" data-tool={tool.name}>
          <code className="font-mono text-xs">{tool.model_name ?? tool.name}</code>{" "}
          <span className={badgeClass}>{tool.effect === "read" ? t("settings.mcp.effectRead") : t("settings.mcp.effectWrite")}</span>
          {tool.model_name === null ? <span className="ml-1 text-xs text-amber-700 dark:text-amber-400">⚠ {t("settings.mcp.skipped")}</span> : null}
          {tool.description ? <span className="ml-1 text-zinc-600 dark:text-zinc-400">— {tool.description}</span> : null}
        </li>
      ))}
    </ul>
  );
}

function McpServerCard({ server }: { server: McpServerView }) {
  const t = useT();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [tested, setTested] = useState<McpTestResult | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: mcpServersQuery().queryKey });
  const test = useMutation({ mutationFn: () => testMcpServer(server.name), onSuccess: (r) => setTested(r), onSettled: refresh });
  const remove = useMutation({ mutationFn: () => removeMcpServer(server.name), onSuccess: () => setConfirming(false), onSettled: refresh });
  const st = server.status;
  const tools = tested?.ok ? tested.tools : st.tools;
  return (
    <li className="rounded-md border border-zinc-200 p-3 dark:border-zinc-700" data-testid="mcp-server" data-name={server.name}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono font-semibold">{server.name}</span>
        <span className={badgeClass}>{server.type}</span>
        <span className={`${badgeClass} ${st.running_in > 0 ? "bg-emerald-100 text-emerald-800 dark:bg-emerald-900/50 dark:text-emerald-200" : ""}`} data-testid="mcp-status">
          {st.running_in > 0 ? t("settings.mcp.status.running", { n: st.running_in }) : t("settings.mcp.status.configured")}
        </span>
        {st.crashes > 0 ? <span className="text-xs text-amber-700 dark:text-amber-400">{t("settings.mcp.crashes", { n: st.crashes })}</span> : null}
        <span className="ml-auto flex gap-2">
          <button type="button" className={buttonSecondary} disabled={test.isPending} onClick={() => test.mutate()} data-testid="mcp-test">
            {test.isPending ? t("settings.mcp.testing") : t("settings.mcp.test")}
          </button>
          <button type="button" className={buttonSecondary} onClick={() => setEditing((e) => !e)} data-testid="mcp-edit">
            {t("settings.mcp.edit")}
          </button>
          <button type="button" className={buttonDanger} onClick={() => setConfirming(true)} data-testid="mcp-remove">
            {t("settings.mcp.remove")}
          </button>
        </span>
      </div>
      <p className="mt-1 font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">{server.type === "http" ? server.url : [server.command, ...(server.args ?? [])].join(" ")}</p>
      {tested ? (
        <div className="mt-2">
          <Banner tone={tested.ok ? "success" : "error"} testId="mcp-test-result">
            {tested.ok ? t("settings.mcp.testOk", { n: tested.tools.length }) : t("settings.mcp.testFailed", { error: tested.error ?? "" })}
            {tested.warnings.map((w) => (
              <div key={w}>⚠ {w}</div>
            ))}
          </Banner>
        </div>
      ) : test.isError ? (
        <div className="mt-2">
          <Banner tone="error">{test.error.message}</Banner>
        </div>
      ) : null}
      {st.last_error ? (
        <p className="mt-2 text-sm text-red-700 dark:text-red-300" data-testid="mcp-last-error">
          {t("settings.mcp.lastError")}: {st.last_error}
        </p>
      ) : null}
      <h3 className="mt-2 text-sm font-semibold">{t("settings.mcp.tools")}</h3>
      {tools ? <ToolList tools={tools} /> : <p className={hintClass}>{t("settings.mcp.toolsUnknown")}</p>}
      {editing ? <McpServerForm initial={formFromView(server)} onDone={() => setEditing(false)} /> : null}
      <ConfirmDialog
        open={confirming}
        title={t("settings.mcp.remove")}
        confirmLabel={t("settings.mcp.remove")}
        busy={remove.isPending}
        error={remove.error?.message}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirming(false)}
        testId="mcp-remove-dialog"
      >
        {t("settings.mcp.removeConfirm", { name: server.name })}
      </ConfirmDialog>
    </li>
  );
}

function McpServerForm({ initial, isNew = false, onDone }: { initial: McpFormState; isNew?: boolean; onDone: () => void }) {
  const t = useT();
  const uid = useId();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<McpFormState>(initial);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async () => {
      const built = configFromForm(form);
      if (!built.ok) throw new Error(built.problem ? t("settings.mcp.badLine", { line: built.problem.line, message: t(built.problem.field === "env" ? "settings.mcp.env" : "settings.mcp.headers") }) : (built.message ?? ""));
      return isNew ? addMcpServer(form.name.trim(), built.config) : saveMcpServer(form.name, built.config);
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: mcpServersQuery().queryKey });
      onDone();
    },
    onError: (error) => setProblem(error instanceof ApiError ? error.message : (error as Error).message),
  });
  const set = <K extends keyof McpFormState>(key: K, value: McpFormState[K]) => setForm((f) => ({ ...f, [key]: value }));
  const field = (key: "command" | "url", label: string) => (
    <div>
      <label className={labelClass} htmlFor={`${uid}-${key}`}>
        {label}
      </label>
      <input id={`${uid}-${key}`} className={`${inputClass} mt-1 font-mono`} value={form[key]} onChange={(e) => set(key, e.target.value)} spellCheck={false} autoComplete="off" data-testid={`mcp-field-${key}`} />
    </div>
  );
  const area = (key: "args" | "env" | "headers", label: string) => (
    <div>
      <label className={labelClass} htmlFor={`${uid}-${key}`}>
        {label}
      </label>
      <textarea id={`${uid}-${key}`} rows={3} className={`${inputClass} mt-1 font-mono`} value={form[key]} onChange={(e) => set(key, e.target.value)} spellCheck={false} data-testid={`mcp-field-${key}`} />
    </div>
  );
  return (
    <form
      className="mt-3 space-y-3 rounded-md border border-indigo-200 p-3 dark:border-indigo-800"
      data-testid="mcp-form"
      onSubmit={(e) => {
        e.preventDefault();
        setProblem(null);
        save.mutate();
      }}
    >
      <div className="grid gap-3 sm:grid-cols-2">
        <div>
          <label className={labelClass} htmlFor={`${uid}-name`}>
            {t("settings.mcp.name")}
          </label>
          <input id={`${uid}-name`} className={`${inputClass} mt-1 font-mono`} value={form.name} disabled={!isNew} onChange={(e) => set("name", e.target.value)} spellCheck={false} autoComplete="off" data-testid="mcp-field-name" />
        </div>
        <div>
          <label className={labelClass} htmlFor={`${uid}-type`}>
            {t("settings.mcp.type")}
          </label>
          <select id={`${uid}-type`} className={`${inputClass} mt-1`} value={form.type} onChange={(e) => set("type", e.target.value === "http" ? "http" : "stdio")} data-testid="mcp-field-type">
            <option value="stdio">{t("settings.mcp.typeStdio")}</option>
            <option value="http">{t("settings.mcp.typeHttp")}</option>
          </select>
        </div>
      </div>
      {form.type === "stdio" ? (
        <>
          {field("command", t("settings.mcp.command"))}
          {area("args", t("settings.mcp.args"))}
          {area("env", t("settings.mcp.env"))}
        </>
      ) : (
        <>
          {field("url", t("settings.mcp.url"))}
          {area("headers", t("settings.mcp.headers"))}
        </>
      )}
      <p className={hintClass}>{t("settings.mcp.secretHint")}</p>
      {problem ? (
        <Banner tone="error" testId="mcp-form-error">
          {problem}
        </Banner>
      ) : null}
      <div className="flex gap-2">
        <button type="submit" className={buttonPrimary} disabled={save.isPending} data-testid="mcp-save">
          {t("settings.mcp.save")}
        </button>
        <button type="button" className={buttonSecondary} onClick={onDone}>
          {t("settings.mcp.cancel")}
        </button>
      </div>
    </form>
  );
}
