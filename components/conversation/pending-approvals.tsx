"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { decideAgentApproval, formErrorText, type InputField } from "@/lib/client";
import type { ApprovalBody } from "@/lib/contracts/http";
import { useLocale, useT } from "@/lib/i18n";
import type { AgentView } from "@/lib/contracts/events";
import { PendingApprovalSchema, type PendingApproval } from "@/lib/contracts/on-disk";
import { Banner } from "@/components/ui/banner";
import { buttonGhost, buttonPrimary, buttonSecondary, inputClass } from "@/components/ui/styles";
import { buttonDangerGhost } from "./styles";

/** The approval body's texts a person types (lib/contracts/http.ts `ApprovalBodySchema`), as their limits are named. */
const APPROVAL_FIELDS: Readonly<Record<string, InputField>> = { reason: "reason", pattern: "pattern" };

/** One tool call waiting for approval, with the agent that made it. */
export interface ApprovalItem {
  agent_id: number;
  display_name: string;
  approval: PendingApproval;
}

/** The tool calls waiting for a person's approval, read from the agents' pending entries. */
export function pendingApprovals(agents: readonly AgentView[]): ApprovalItem[] {
  return agents.flatMap((a) =>
    (a.metadata.pending_tool_calls ?? []).flatMap((p) => {
      const parsed = PendingApprovalSchema.safeParse(p);
      return parsed.success ? [{ agent_id: a.metadata.agent_id, display_name: a.metadata.display_name, approval: parsed.data }] : [];
    }),
  );
}

/** Approval cards above the composer: approve, always allow (with an editable pattern) or deny with a reason. */
export function PendingApprovals({ conversationId, items }: { conversationId: string; items: readonly ApprovalItem[] }) {
  if (items.length === 0) return null;
  return (
    <ul className="space-y-2" data-testid="pending-approvals">
      {items.map((item) => (
        <ApprovalCard key={item.approval.tool_call_id} conversationId={conversationId} item={item} />
      ))}
    </ul>
  );
}

function ApprovalCard({ conversationId, item }: { conversationId: string; item: ApprovalItem }) {
  const t = useT();
  const locale = useLocale();
  const { approval } = item;
  const [mode, setMode] = useState<"buttons" | "deny" | "always">("buttons");
  const [reason, setReason] = useState("");
  const [pattern, setPattern] = useState(approval.command ?? "");
  const decide = useMutation({
    mutationFn: (body: Omit<ApprovalBody, "tool_call_id">) => decideAgentApproval(conversationId, item.agent_id, { tool_call_id: approval.tool_call_id, ...body }),
  });
  const isCommand = approval.command !== undefined;
  return (
    <li
      className="space-y-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-950 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-50"
      data-testid="approval-card"
      data-agent-id={item.agent_id}
      data-tool-call-id={approval.tool_call_id}
    >
      <p className="font-semibold">{isCommand ? t("approvals.wantsCommand", { name: item.display_name }) : t("approvals.wantsTool", { name: item.display_name, tool: approval.tool_name })}</p>
      <pre className="overflow-auto rounded border border-amber-200 bg-white px-2 py-1 font-mono text-[11px] whitespace-pre-wrap break-all dark:border-amber-800 dark:bg-zinc-900" data-testid="approval-command">
        {isCommand ? approval.command : approval.arguments_preview}
      </pre>
      <p className="text-amber-800 dark:text-amber-200" data-testid="approval-folder">
        {t("approvals.folder", { folder: approval.cwd })}
      </p>
      {approval.held ? (
        <p className="font-medium text-amber-900 dark:text-amber-100" data-testid="approval-held" data-held={approval.held.code}>
          {t(`approvals.held.${approval.held.code}`, { detail: approval.held.detail ?? "" })}
        </p>
      ) : null}
      {decide.error ? (
        <Banner tone="error" testId="approval-error">
          {t("approvals.error", { error: formErrorText(decide.error, t, locale, APPROVAL_FIELDS, "reason") })}
        </Banner>
      ) : null}
      {mode === "buttons" ? (
        <div className="flex flex-wrap gap-2">
          <button type="button" className={buttonPrimary} disabled={decide.isPending} onClick={() => decide.mutate({ decision: "approve" })} data-testid="approval-approve">
            {t("approvals.approve")}
          </button>
          <button type="button" className={buttonSecondary} disabled={decide.isPending} onClick={() => (isCommand ? setMode("always") : decide.mutate({ decision: "approve", always: true }))} data-testid="approval-always">
            {t("approvals.always")}
          </button>
          <button type="button" className={buttonDangerGhost} disabled={decide.isPending} onClick={() => setMode("deny")} data-testid="approval-deny">
            {t("approvals.deny")}
          </button>
        </div>
      ) : null}
      {mode === "always" ? (
        <DecisionForm
          label={t("approvals.patternLabel")}
          inputId={`pattern-${approval.tool_call_id}`}
          submit={{ label: t("approvals.alwaysConfirm"), className: buttonPrimary, disabled: decide.isPending || !pattern.trim(), testId: "approval-always-confirm" }}
          cancel={t("approvals.cancel")}
          onSubmit={() => decide.mutate({ decision: "approve", always: true, ...(pattern.trim() && pattern.trim() !== approval.command ? { pattern: pattern.trim() } : {}) })}
          onCancel={() => setMode("buttons")}
        >
          <input id={`pattern-${approval.tool_call_id}`} className={`${inputClass} font-mono text-xs`} value={pattern} onChange={(e) => setPattern(e.target.value)} data-testid="approval-pattern" />
        </DecisionForm>
      ) : null}
      {mode === "deny" ? (
        <DecisionForm
          label={t("approvals.reasonLabel")}
          inputId={`reason-${approval.tool_call_id}`}
          submit={{ label: t("approvals.denyConfirm"), className: buttonDangerGhost, disabled: decide.isPending, testId: "approval-deny-confirm" }}
          cancel={t("approvals.cancel")}
          onSubmit={() => decide.mutate({ decision: "deny", ...(reason.trim() ? { reason: reason.trim() } : {}) })}
          onCancel={() => setMode("buttons")}
        >
          <textarea id={`reason-${approval.tool_call_id}`} className={`${inputClass} text-xs`} rows={2} maxLength={2000} value={reason} onChange={(e) => setReason(e.target.value)} data-testid="approval-reason" />
        </DecisionForm>
      ) : null}
    </li>
  );
}

/** The second step of a decision: one labelled field (the pattern to allow, the reason to deny), confirm and cancel. */
function DecisionForm(props: {
  label: string;
  inputId: string;
  submit: { label: string; className: string; disabled: boolean; testId: string };
  cancel: string;
  onSubmit: () => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  return (
    <form
      className="space-y-1.5"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit();
      }}
    >
      <label className="block font-medium" htmlFor={props.inputId}>
        {props.label}
      </label>
      {props.children}
      <div className="flex gap-2">
        <button type="submit" className={props.submit.className} disabled={props.submit.disabled} data-testid={props.submit.testId}>
          {props.submit.label}
        </button>
        <button type="button" className={buttonGhost} onClick={props.onCancel}>
          {props.cancel}
        </button>
      </div>
    </form>
  );
}
