"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { addModelEntry, discoveryQuery, modelListQuery, modelSettingsQuery } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { entryForFound, keyForFound, SERVER_NAMES } from "@/lib/model-settings/found-servers";
import { Banner } from "@/components/ui/banner";
import { buttonSecondary } from "@/components/ui/styles";

/** How many of a found server's models are offered here (Settings → Models lists them all). */
const OFFERED = 3;

/**
 * When no model but the offline one is configured and a model server runs on this computer, the
 * new-conversation form says so and offers its models beside the offline one: one click adds the
 * model to models.json and picks it.
 */
export function LocalModelOffer({ onPicked }: { onPicked: (key: string) => void }) {
  const t = useT();
  const queryClient = useQueryClient();
  const models = useQuery(modelListQuery());
  const noneConfigured = models.data !== undefined && models.data.models.every((m) => m.offline);
  const found = useQuery({ ...discoveryQuery(), enabled: noneConfigured });
  const add = useMutation({
    mutationFn: async ({ server, model }: { server: NonNullable<typeof found.data>["servers"][number]; model: string }) => {
      const key = keyForFound(server, model, models.data?.models.map((m) => m.key) ?? []);
      await addModelEntry({ key, entry: entryForFound(server, model) });
      return key;
    },
    onSuccess: async (key) => {
      await queryClient.invalidateQueries({ queryKey: modelListQuery().queryKey });
      await queryClient.invalidateQueries({ queryKey: modelSettingsQuery().queryKey });
      onPicked(key);
    },
  });
  const server = found.data?.servers.find((s) => s.models.length > 0);
  if (!noneConfigured || !server) return null;
  return (
    <Banner tone="info" testId="new-conversation-local">
      <p>{t("conv.new.localFound", { server: `${SERVER_NAMES[server.provider] ?? server.provider} (127.0.0.1:${server.port})`, model: server.models[0] ?? "" })}</p>
      <div className="mt-2 flex flex-wrap gap-2">
        {server.models.slice(0, OFFERED).map((m) => (
          <button key={m} type="button" className={`${buttonSecondary} px-2 py-0.5 text-xs`} disabled={add.isPending} onClick={() => add.mutate({ server, model: m })} data-testid="new-conversation-local-use" data-model={m}>
            {add.isPending && add.variables?.model === m ? t("conv.new.localAdding") : t("conv.new.localUse", { model: m })}
          </button>
        ))}
      </div>
      {add.error ? <p className="mt-1 text-red-700 dark:text-red-300">{add.error.message}</p> : null}
    </Banner>
  );
}
