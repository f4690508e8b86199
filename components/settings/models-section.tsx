"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { addModelEntry, ApiError, discoveryQuery, modelListQuery, modelSettingsQuery, removeModelEntry, rescanLocalServers, setDefaultModelKey } from "@/lib/client";
import { useT } from "@/lib/i18n";
import { entryForFound, keyForFound, SERVER_NAMES } from "@/lib/model-settings/found-servers";
import type { ModelSettings } from "@/lib/model-settings/schema";
import { Banner } from "@/components/ui/banner";
import { DataText } from "@/components/ui/data-text";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { badgeClass, buttonDanger, buttonGhost, buttonSecondary, cardClass } from "@/components/ui/styles";
import { ConnectionDoctor } from "./connection-doctor";
import { ModelEntryForm } from "./model-entry-form";
import { EMPTY_MODEL_FORM, formFromEntry, isStale, refusalsOf } from "./model-form";

type Entry = ModelSettings["entries"][number];

/**
 * Settings → Models: models.json's entries (add, edit, remove, make default) and the model servers
 * found on this computer, each model one click from being added. Every change carries the etag the
 * page read, so a hand edit of models.json made meanwhile is reported, never overwritten.
 */
export function ModelsSection() {
  const t = useT();
  const queryClient = useQueryClient();
  const settings = useQuery(modelSettingsQuery());
  const [adding, setAdding] = useState(false);
  const [stale, setStale] = useState(false);
  const applied = async (next: ModelSettings) => {
    queryClient.setQueryData(modelSettingsQuery().queryKey, next);
    await queryClient.invalidateQueries({ queryKey: modelListQuery().queryKey });
  };
  const reload = async () => {
    setStale(false);
    await queryClient.invalidateQueries({ queryKey: modelSettingsQuery().queryKey });
    await queryClient.invalidateQueries({ queryKey: modelListQuery().queryKey });
  };
  const data = settings.data;
  return (
    <section className={`${cardClass} p-5`} aria-labelledby="settings-models" data-testid="settings-models">
      <div className="flex items-center justify-between gap-3">
        <h2 id="settings-models" className="text-lg font-semibold">
          {t("settings.models")}
        </h2>
        {data && !data.error && !adding ? (
          <button type="button" className={buttonSecondary} onClick={() => setAdding(true)} data-testid="model-add">
            {t("settings.models.add")}
          </button>
        ) : null}
      </div>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">{t("settings.models.hint")}</p>
      {stale ? (
        <div className="mt-2">
          <Banner tone="warning" testId="models-stale">
            {t("settings.models.stale")}{" "}
            <button type="button" className={`${buttonGhost} px-2 py-0.5 text-xs`} onClick={() => void reload()} data-testid="models-reload">
              {t("settings.models.reload")}
            </button>
          </Banner>
        </div>
      ) : null}
      {settings.isPending ? (
        <p className="mt-2 text-sm text-zinc-500">{t("common.loading")}</p>
      ) : settings.isError ? (
        <div className="mt-2">
          <Banner tone="error">{t("common.loadFailed", { message: settings.error.message })}</Banner>
        </div>
      ) : data!.error ? (
        <div className="mt-2">
          <Banner tone="error" testId="models-file-error">
            {t("settings.models.fileError", { error: data!.error })}
          </Banner>
        </div>
      ) : (
        <>
          {data!.effective_default !== data!.default ? <p className="mt-2 text-sm text-amber-700 dark:text-amber-400">{t("settings.models.envDefault", { key: data!.effective_default })}</p> : null}
          {adding ? <ModelEntryForm initial={EMPTY_MODEL_FORM} isNew settings={data!} onSaved={(n) => void applied(n).then(() => setAdding(false))} onCancel={() => setAdding(false)} onStale={() => setStale(true)} /> : null}
          <ul className="mt-3 space-y-3">
            {data!.entries.map((e) => (
              <ModelCard key={e.key} item={e} settings={data!} onApplied={applied} onStale={() => setStale(true)} />
            ))}
          </ul>
          <LocalServers settings={data!} onApplied={applied} onStale={() => setStale(true)} />
        </>
      )}
    </section>
  );
}

function KeyBadge({ item }: { item: Entry }) {
  const t = useT();
  const k = item.api_key;
  const ok = k.source === "none" || k.set;
  const text = k.source === "none" ? t("settings.models.keyState.none") : k.source === "stored" ? (k.set ? t("settings.models.keyState.stored") : t("settings.models.keyState.storedMissing")) : k.set ? t("settings.models.keyState.env", { env: k.env }) : t("settings.models.keyState.envMissing", { env: k.env });
  return (
    <span className={`${badgeClass} ${ok ? "" : "bg-amber-100 text-amber-900 dark:bg-amber-900/50 dark:text-amber-200"}`} data-testid="model-key-state">
      {text}
    </span>
  );
}

/**
 * The provider profile the entry's calls follow and how it was found (named in models.json, or
 * guessed from its base URL or its server's /v1/models), from GET /api/models.
 */
function ProviderLine({ modelKey }: { modelKey: string }) {
  const models = useQuery(modelListQuery());
  const provider = models.data?.models.find((m) => m.key === modelKey)?.provider;
  if (!provider || provider.profile === "offline") return null;
  return (
    <p className="mt-1 text-xs text-zinc-500" data-testid="model-provider" data-profile={provider.profile} data-source={provider.source}>
      <DataText k={`models.provider.${provider.source}`} vars={{ profile: provider.profile, detail: provider.detail }} />
    </p>
  );
}

function ModelCard({ item, settings, onApplied, onStale }: { item: Entry; settings: ModelSettings; onApplied: (n: ModelSettings) => Promise<void>; onStale: () => void }) {
  const t = useT();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const onError = (error: Error) => {
    if (error instanceof ApiError && error.isConflict && isStale(error.details)) onStale();
  };
  const makeDefault = useMutation({ mutationFn: () => setDefaultModelKey(item.key, settings.etag), onSuccess: onApplied, onError });
  const remove = useMutation({ mutationFn: () => removeModelEntry(item.key, settings.etag), onSuccess: async (n) => onApplied(n).then(() => setConfirming(false)), onError });
  const refusals = remove.error instanceof ApiError ? refusalsOf(remove.error.details) : [];
  const isDefault = item.key === settings.default;
  return (
    <li className="rounded-md border border-zinc-200 p-3 dark:border-zinc-700" data-testid="model-entry" data-key={item.key}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono font-semibold">{item.key}</span>
        {isDefault ? <span className={`${badgeClass} bg-indigo-100 text-indigo-800 dark:bg-indigo-900/50 dark:text-indigo-200`} data-testid="model-default-badge">{t("settings.models.default")}</span> : null}
        <span className={badgeClass}>{item.entry.provider}</span>
        {item.entry.provider === "offline" ? null : <KeyBadge item={item} />}
        <span className="ml-auto flex flex-wrap gap-2">
          {!isDefault ? (
            <button type="button" className={buttonSecondary} disabled={makeDefault.isPending} onClick={() => makeDefault.mutate()} data-testid="model-make-default">
              {t("settings.models.makeDefault")}
            </button>
          ) : null}
          {item.entry.provider !== "offline" ? (
            <button type="button" className={buttonSecondary} onClick={() => setEditing((v) => !v)} data-testid="model-edit">
              {t("settings.models.edit")}
            </button>
          ) : null}
          <button type="button" className={buttonDanger} onClick={() => setConfirming(true)} data-testid="model-remove">
            {t("settings.models.remove")}
          </button>
        </span>
      </div>
      <p className="mt-1 text-sm">
        {item.entry.label ?? item.key} · <code className="font-mono text-xs">{item.entry.model}</code>
        {item.entry.base_url ? <code className="ml-2 font-mono text-xs break-all text-zinc-500">{item.entry.base_url}</code> : null}
      </p>
      <ProviderLine modelKey={item.key} />
      {item.entry.provider !== "offline" ? (
        <div className="mt-2">
          <ConnectionDoctor modelKey={item.key} />
        </div>
      ) : null}
      {makeDefault.error && !isStale((makeDefault.error as ApiError).details) ? <Banner tone="error">{makeDefault.error.message}</Banner> : null}
      {editing ? <ModelEntryForm initial={formFromEntry(item)} isNew={false} settings={settings} onSaved={(n) => void onApplied(n).then(() => setEditing(false))} onCancel={() => setEditing(false)} onStale={onStale} /> : null}
      <ConfirmDialog
        open={confirming}
        title={t("settings.models.remove")}
        confirmLabel={t("settings.models.remove")}
        busy={remove.isPending}
        error={remove.error ? (refusals.length > 0 ? [t("settings.models.refused.title", { key: item.key }), ...refusals.map((r) => t(r.key, { name: r.name }))].join(" ") : remove.error.message) : undefined}
        onConfirm={() => remove.mutate()}
        onCancel={() => {
          setConfirming(false);
          remove.reset();
        }}
        testId="model-remove-dialog"
      >
        {t("settings.models.removeConfirm", { key: item.key })}
      </ConfirmDialog>
    </li>
  );
}

/** The model servers found on 127.0.0.1, each listed model one click from being an entry. */
function LocalServers({ settings, onApplied, onStale }: { settings: ModelSettings; onApplied: (n: ModelSettings) => Promise<void>; onStale: () => void }) {
  const t = useT();
  const queryClient = useQueryClient();
  const found = useQuery(discoveryQuery());
  const rescan = useMutation({ mutationFn: rescanLocalServers, onSuccess: (r) => queryClient.setQueryData(discoveryQuery().queryKey, r) });
  const add = useMutation({
    mutationFn: ({ server, model }: { server: NonNullable<typeof found.data>["servers"][number]; model: string }) =>
      addModelEntry({ key: keyForFound(server, model, settings.entries.map((e) => e.key)), entry: entryForFound(server, model), etag: settings.etag }),
    onSuccess: onApplied,
    onError: (error) => {
      if (error instanceof ApiError && error.isConflict && isStale(error.details)) onStale();
    },
  });
  const known = new Set(settings.entries.map((e) => `${e.entry.base_url ?? ""}\u0000${e.entry.model}`));
  return (
    <div className="mt-4 rounded-md bg-zinc-50 p-3 dark:bg-zinc-800/50" data-testid="models-local">
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold">{t("settings.models.local.title")}</h3>
        <button type="button" className={`${buttonGhost} px-2 py-1 text-xs`} disabled={rescan.isPending} onClick={() => rescan.mutate()} data-testid="models-rescan">
          {rescan.isPending ? t("settings.models.local.scanning") : t("settings.models.local.rescan")}
        </button>
      </div>
      {found.isPending ? (
        <p className="mt-1 text-sm text-zinc-500">{t("settings.models.local.scanning")}</p>
      ) : found.data && found.data.servers.length === 0 ? (
        <p className="mt-1 text-sm text-zinc-500" data-testid="models-local-none">
          {t("settings.models.local.none", { ports: found.data.ports.join(", ") })}
        </p>
      ) : (
        <ul className="mt-1 space-y-2 text-sm">
          {found.data?.servers.map((s) => (
            <li key={s.port} data-testid="models-local-server" data-port={s.port}>
              <span className="font-medium">{t("settings.models.local.server", { server: SERVER_NAMES[s.provider] ?? s.provider, url: s.base_url })}</span>
              {s.models.length === 0 ? <span className="ml-2 text-zinc-500">{t("settings.models.local.noModels")}</span> : null}
              <span className="ml-2 inline-flex flex-wrap gap-1">
                {s.models.map((m) =>
                  known.has(`${s.base_url}\u0000${m}`) ? (
                    <span key={m} className={badgeClass}>
                      {m} · {t("settings.models.local.added")}
                    </span>
                  ) : (
                    <button key={m} type="button" className={`${buttonSecondary} px-2 py-0.5 text-xs`} disabled={add.isPending} onClick={() => add.mutate({ server: s, model: m })} data-testid="models-local-add" data-model={m}>
                      {t("settings.models.local.add", { model: m })}
                    </button>
                  ),
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      {add.error && !isStale((add.error as ApiError).details) ? <Banner tone="error">{add.error.message}</Banner> : null}
    </div>
  );
}
