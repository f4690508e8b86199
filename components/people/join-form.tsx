"use client";

import { useMutation } from "@tanstack/react-query";
import { useId, useState, useSyncExternalStore, type FormEvent } from "react";
import { Banner } from "@/components/ui/banner";
import { buttonPrimary, inputClass, labelClass } from "@/components/ui/styles";
import { ApiError, joinTeam } from "@/lib/client";
import { useT, type TranslateFn } from "@/lib/i18n";

/** The words for a refused join: the invitation's state or the name, else the server's message. */
function joinErrorText(error: unknown, t: TranslateFn): string {
  const reason = error instanceof ApiError ? (error.details as { reason?: unknown } | undefined)?.reason : undefined;
  if (reason === "unknown" || reason === "used" || reason === "expired" || reason === "name_taken") return t(`join.error.${reason}`);
  return t("join.failed", { message: error instanceof Error ? error.message : String(error) });
}

/** The link's fragment (the invitation token): "" when there is none, null while rendering on the server. */
function useHashToken(): string | null {
  return useSyncExternalStore(
    (changed) => {
      window.addEventListener("hashchange", changed);
      return () => window.removeEventListener("hashchange", changed);
    },
    () => window.location.hash.replace(/^#/, ""),
    () => null,
  );
}

/**
 * Accepting an invitation: the token is the link's fragment (`/join#<token>`, never sent to the
 * server with the page), the invitee picks a display name and a password, and a full navigation
 * to the app follows so the new session cookie is used.
 */
export function JoinForm() {
  const t = useT();
  const uid = useId();
  const token = useHashToken();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const mutation = useMutation({
    mutationFn: () => joinTeam(token ?? "", name, password),
    // A full load on purpose: the page is rendered again as the new person.
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    onSuccess: () => window.location.assign("/"),
  });
  if (token === "") {
    return (
      <Banner tone="warning" testId="join-no-token">
        {t("join.noToken")}
      </Banner>
    );
  }
  function submit(e: FormEvent) {
    e.preventDefault();
    if (token && name.trim() && password) mutation.mutate();
  }
  return (
    <form onSubmit={submit} className="space-y-4" data-testid="join-form">
      {mutation.error ? (
        <Banner tone="error" testId="join-error">
          {joinErrorText(mutation.error, t)}
        </Banner>
      ) : null}
      <div>
        <label htmlFor={`${uid}-name`} className={labelClass}>
          {t("join.name")}
        </label>
        <input id={`${uid}-name`} className={`${inputClass} mt-1`} value={name} onChange={(e) => setName(e.target.value)} maxLength={60} autoComplete="username" required data-testid="join-name" />
      </div>
      <div>
        <label htmlFor={`${uid}-password`} className={labelClass}>
          {t("join.password")}
        </label>
        <input
          id={`${uid}-password`}
          type="password"
          className={`${inputClass} mt-1`}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          minLength={10}
          autoComplete="new-password"
          required
          data-testid="join-password"
        />
      </div>
      <button type="submit" className={buttonPrimary} disabled={mutation.isPending || !token || !name.trim() || password.length < 10} data-testid="join-submit">
        {mutation.isPending ? t("join.submitting") : t("join.submit")}
      </button>
    </form>
  );
}
