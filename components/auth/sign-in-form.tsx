"use client";

import { useMutation } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { signIn } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { safeNextPath } from "@/lib/security/safe-next";
import { Banner } from "@/components/ui/banner";
import { buttonPrimary, inputClass, labelClass } from "@/components/ui/styles";

/**
 * The access-token form; on success it does a full navigation so the new cookie is sent. Where
 * it goes is the server's answer, checked once more here with the same rule: only a path of this
 * origin, never another site (see lib/security/safe-next.ts).
 */
export function SignInForm({ next }: { next: string }) {
  const t = useT();
  const uid = useId();
  const [token, setToken] = useState("");
  const mutation = useMutation({
    mutationFn: () => signIn(token, next),
    onSuccess: (answer) => {
      window.location.assign(safeNextPath(answer.next));
    },
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!token) return;
    mutation.mutate();
  }

  return (
    <form onSubmit={submit} className="space-y-4" data-testid="signin-form" data-next={next}>
      {mutation.error ? (
        <Banner tone="error" testId="signin-error">
          {t("signin.failed", { message: mutation.error.message })}
        </Banner>
      ) : null}
      <div>
        <label htmlFor={`${uid}-token`} className={labelClass}>
          {t("signin.token")}
        </label>
        <input
          id={`${uid}-token`}
          type="password"
          className={`${inputClass} mt-1 font-mono`}
          value={token}
          onChange={(e) => setToken(e.target.value)}
          autoComplete="current-password"
          autoFocus
          required
          data-testid="signin-token"
        />
      </div>
      <button type="submit" className={buttonPrimary} disabled={mutation.isPending || !token} data-testid="signin-submit">
        {mutation.isPending ? t("signin.submitting") : t("signin.submit")}
      </button>
    </form>
  );
}
