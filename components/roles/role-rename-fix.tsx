"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { renameRoleFile, roleKeys } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { buttonPrimary } from "@/components/ui/styles";

/**
 * The one-click fix for a role file whose name is no valid id: renames it to the suggested id
 * (the server refuses to overwrite, 409, and the message says so). With `open` the editor of the
 * renamed role opens afterwards.
 */
export function RoleRenameFix({ file, suggestedId, open = false }: { file: string; suggestedId: string; open?: boolean }) {
  const t = useT();
  const router = useRouter();
  const queryClient = useQueryClient();
  const rename = useMutation({
    mutationFn: () => renameRoleFile({ file, id: suggestedId }),
    onSuccess: async (role) => {
      queryClient.removeQueries({ queryKey: roleKeys.file(file) });
      await queryClient.invalidateQueries({ queryKey: roleKeys.list() });
      if (open) router.push(`/roles/${encodeURIComponent(role.id)}`);
    },
  });
  return (
    <div className="space-y-1" data-testid="role-rename">
      <p className="text-xs text-amber-700 dark:text-amber-400" data-testid="role-rename-why">
        {t("roles.rename.why", { file })}
      </p>
      <button type="button" className={`${buttonPrimary} text-xs`} disabled={rename.isPending} onClick={() => rename.mutate()} data-testid="role-rename-fix">
        {rename.isPending ? t("roles.rename.renaming") : t("roles.rename.fix", { id: suggestedId })}
      </button>
      {rename.error ? (
        <p className="text-xs text-red-700 dark:text-red-300" role="alert" data-testid="role-rename-error">
          {t("roles.rename.failed", { message: rename.error.message })}
        </p>
      ) : null}
    </div>
  );
}
