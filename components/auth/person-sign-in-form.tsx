"use client";

import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { ApiError, signInWithPassword } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { safeNextPath } from "@/lib/security/safe-next";
import { Banner } from "@/components/ui/banner";
import { buttonPrimary, inputClass, labelClass } from "@/components/ui/styles";

/**
 * A person's sign-in (team mode): the display name they joined with and their password. As with
 * the token form, only a same-origin path is ever navigated to afterwards.
 */
export function PersonSignInForm({ next }: { next: string }) {
  const t = useT();
  const uid = useId();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const mutation = useMutation({
    mutationFn: () => signInWithPassword(name, password, next),
    onSuccess: (answer) => window.location.assign(safeNextPath(answer.next)),
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    if (name.trim() && password) mutation.mutate();
  }
  const error = mutation.error;
  const locked = error instanceof ApiError && error.code === "rate_limited" ? Number((error.details as { retry_after_seconds?: number } | undefined)?.retry_after_seconds ?? 1) : null;
  return (
    <form onSubmit={submit} className="space-y-4" data-testid="signin-person-form">
      {error ? (
        <Banner tone="error" testId="signin-person-error">
          {locked !== null ? t("signin.locked", { seconds: locked }) : error instanceof ApiError && error.code === "unauthorized" ? t("signin.person.wrong") : t("signin.failed", { message: error.message })}
        </Banner>
      ) : null}
      <div>
        <label htmlFor={`${uid}-name`} className={labelClass}>
          {t("signin.person.name")}
        </label>
        <input id={`${uid}-name`} className={`${inputClass} mt-1`} value={name} onChange={(e) => setName(e.target.value)} autoComplete="username" required data-testid="signin-name" />
      </div>
      <div>
        <label htmlFor={`${uid}-password`} className={labelClass}>
          {t("signin.person.password")}
        </label>
        <input
          id={`${uid}-password`}
          type="password"
          className={`${inputClass} mt-1`}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoComplete="current-password"
          required
          data-testid="signin-password"
        />
      </div>
      <button type="submit" className={buttonPrimary} disabled={mutation.isPending || !name.trim() || !password} data-testid="signin-person-submit">
        {mutation.isPending ? t("signin.submitting") : t("signin.submit")}
      </button>
    </form>
  );
}
