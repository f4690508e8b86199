"use client";

import { useMutation } from "@tanstack/react-query";
import { usePathname } from "next/navigation";
import { signOut } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { buttonGhost } from "@/components/ui/styles";

/**
 * "Sign out", shown in the header when the server requires an access token (not on the sign-in
 * page itself). The server expires the cookie; a full navigation then lands on the sign-in page.
 */
export function SignOutButton() {
  const t = useT();
  const pathname = usePathname();
  const mutation = useMutation({
    mutationFn: signOut,
    // A full load on purpose: nothing of the signed-in session (cached queries, open streams) stays.
    // eslint-disable-next-line @next/next/no-location-assign-relative-destination
    onSuccess: () => window.location.assign("/signin"),
  });
  if (pathname === "/signin") return null;
  return (
    <button
      type="button"
      className={`${buttonGhost} text-sm`}
      onClick={() => mutation.mutate()}
      disabled={mutation.isPending}
      title={mutation.error ? t("signout.failed", { message: mutation.error.message }) : undefined}
      data-testid="signout"
    >
      {mutation.isPending ? t("signout.pending") : t("signout.button")}
    </button>
  );
}
