"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { ApiError, conversationKeys, modelListQuery, patchConversation } from "@/lib/client";
import type { ConversationMetadata } from "@/lib/contracts/on-disk";
import { useT } from "@/lib/i18n";
import { FieldError } from "@/components/ui/field-error";
import { buttonGhost, buttonPrimary, buttonSecondary, inputClass } from "@/components/ui/styles";

/**
 * Changes a conversation's model (`PATCH model_key`, checked against the registry by the server):
 * a conversation started on an endpoint that does not work can move to one that does.
 */
export function ModelPicker({ conversation, openLabel, testId = "conversation-model" }: { conversation: ConversationMetadata; openLabel?: string; testId?: string }) {
  const t = useT();
  const uid = useId();
  const queryClient = useQueryClient();
  const models = useQuery(modelListQuery());
  const [open, setOpen] = useState(false);
  const [choice, setChoice] = useState(conversation.model_key);
  const change = useMutation({
    mutationFn: (model_key: string) => patchConversation(conversation.id, { model_key }),
    onSuccess: async (updated) => {
      queryClient.setQueryData(conversationKeys.detail(updated.id), updated);
      await queryClient.invalidateQueries({ queryKey: conversationKeys.lists() });
      setOpen(false);
    },
  });
  if (!open) {
    return (
      <button
        type="button"
        className={`${buttonGhost} px-1.5 py-0 text-xs`}
        onClick={() => {
          setChoice(conversation.model_key);
          change.reset();
          setOpen(true);
        }}
        data-testid={`${testId}-change`}
      >
        {openLabel ?? t("convPage.model.change")}
      </button>
    );
  }
  const error = change.error instanceof ApiError ? (change.error.fieldIssues[0]?.message ?? change.error.message) : change.error?.message;
  return (
    <form
      className="inline-flex flex-wrap items-center gap-1.5"
      onSubmit={(e) => {
        e.preventDefault();
        change.mutate(choice);
      }}
    >
      <label htmlFor={`${uid}-model`} className="sr-only">
        {t("convPage.model.label")}
      </label>
      <select id={`${uid}-model`} className={`${inputClass} w-auto py-0.5 text-xs`} value={choice} onChange={(e) => setChoice(e.target.value)} title={t("convPage.model.hint")} data-testid={`${testId}-select`}>
        {models.data?.models.some((m) => m.key === conversation.model_key) ? null : <option value={conversation.model_key}>{conversation.model_key}</option>}
        {models.data?.models.map((m) => (
          <option key={m.key} value={m.key}>
            {m.label === m.key ? m.key : `${m.label} (${m.key})`}
          </option>
        ))}
      </select>
      <button type="submit" className={`${buttonPrimary} px-2 py-0.5 text-xs`} disabled={change.isPending || choice === conversation.model_key} data-testid={`${testId}-save`}>
        {t("common.save")}
      </button>
      <button type="button" className={`${buttonSecondary} px-2 py-0.5 text-xs`} onClick={() => setOpen(false)}>
        {t("common.cancel")}
      </button>
      <FieldError id={`${uid}-model-error`} message={error} testId={`${testId}-error`} />
    </form>
  );
}
