"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ActivityList } from "@/components/people/activity-list";
import { Banner } from "@/components/ui/banner";
import { buttonDanger, buttonPrimary, buttonSecondary, cardClass, inputClass, labelClass } from "@/components/ui/styles";
import type { Person, PersonRole } from "@/lib/contracts/people";
import { changeRole, invitePerson, peopleKeys, peopleQuery, removePerson } from "@/lib/client";
import { useLocale, useT, type MessageKey } from "@/lib/i18n";

/** The roles the owner can give (there is one owner). */
const GIVEN_ROLES = ["approver", "editor", "viewer"] as const;
type GivenRole = (typeof GIVEN_ROLES)[number];

/** The People page (the owner's): who is in the team, their roles, invitations, recent changes. */
export function PeopleView() {
  const t = useT();
  const locale = useLocale();
  const client = useQueryClient();
  const list = useQuery(peopleQuery());
  const [role, setRole] = useState<GivenRole>("editor");
  const [link, setLink] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const refresh = () => client.invalidateQueries({ queryKey: peopleKeys.list });
  const invite = useMutation({
    mutationFn: () => invitePerson(role),
    onSuccess: (answer) => {
      setLink(`${window.location.origin}${answer.path}`);
      setCopied(false);
      void refresh();
    },
  });
  const failed = invite.error ?? list.error;
  const when = (iso: string | null) => (iso ? new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso)) : "—");
  const roleName = (r: PersonRole) => t(`people.role.${r}` as MessageKey);

  return (
    <div className="space-y-5">
      {failed ? (
        <Banner tone="error" testId="people-error">
          {t("people.failed", { message: failed.message })}
        </Banner>
      ) : null}
      <section className={`${cardClass} p-4`}>
        <h2 className="mb-2 text-sm font-semibold">{t("people.roles")}</h2>
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm" data-testid="people-roles">
          {(["owner", ...GIVEN_ROLES] as const).map((r) => (
            <div key={r} className="contents">
              <dt className="font-medium">{roleName(r)}</dt>
              <dd className="text-zinc-600 dark:text-zinc-300">{t(`people.roleDesc.${r}` as MessageKey)}</dd>
            </div>
          ))}
        </dl>
      </section>

      <section className={`${cardClass} p-4`}>
        <h2 className="mb-3 text-sm font-semibold">{t("people.invite.title")}</h2>
        <div className="flex flex-wrap items-end gap-3">
          <div>
            <label htmlFor="invite-role" className={labelClass}>
              {t("people.invite.role")}
            </label>
            <select id="invite-role" className={`${inputClass} mt-1`} value={role} onChange={(e) => setRole(e.target.value as GivenRole)} data-testid="invite-role">
              {GIVEN_ROLES.map((r) => (
                <option key={r} value={r}>
                  {roleName(r)}
                </option>
              ))}
            </select>
          </div>
          <button type="button" className={buttonPrimary} onClick={() => invite.mutate()} disabled={invite.isPending} data-testid="invite-submit">
            {invite.isPending ? t("people.invite.creating") : t("people.invite.submit")}
          </button>
        </div>
        {link ? (
          <div className="mt-3 space-y-2" data-testid="invite-result">
            <p className="text-sm text-zinc-600 dark:text-zinc-300">{t("people.invite.link", { hours: list.data?.invite_ttl_hours ?? 72 })}</p>
            <div className="flex gap-2">
              <code className="block flex-1 overflow-x-auto rounded bg-zinc-100 px-2 py-1.5 text-xs dark:bg-zinc-800" data-testid="invite-link">
                {link}
              </code>
              <button
                type="button"
                className={buttonSecondary}
                onClick={() => void navigator.clipboard?.writeText(link).then(() => setCopied(true), () => undefined)}
                data-testid="invite-copy"
              >
                {copied ? t("people.invite.copied") : t("people.invite.copy")}
              </button>
            </div>
          </div>
        ) : null}
        <h3 className="mt-4 mb-1 text-xs font-semibold text-zinc-500 uppercase">{t("people.invitations")}</h3>
        {list.data && list.data.invitations.length === 0 ? <p className="text-sm text-zinc-500">{t("people.invitations.none")}</p> : null}
        <ul className="space-y-1 text-sm" data-testid="invitations">
          {list.data?.invitations.map((i) => (
            <li key={i.id}>
              {roleName(i.role)} · {t("people.invitation.expires", { time: when(i.expires_at) })}
            </li>
          ))}
        </ul>
      </section>

      <section className={`${cardClass} overflow-x-auto`}>
        <table className="w-full text-sm" data-testid="people-table">
          <thead className="text-left text-xs text-zinc-500">
            <tr>
              <th className="px-4 py-2">{t("people.col.name")}</th>
              <th className="px-4 py-2">{t("people.col.role")}</th>
              <th className="px-4 py-2">{t("people.col.joined")}</th>
              <th className="px-4 py-2" />
            </tr>
          </thead>
          <tbody>
            {list.data?.people.map((p) => (
              <PersonRow key={p.id} person={p} joined={when(p.joined_at)} onChanged={refresh} />
            ))}
          </tbody>
        </table>
      </section>

      <ActivityList people={list.data?.people ?? []} />
    </div>
  );
}

/** One person: their role (the owner's is fixed) and Remove, with a confirmation. */
function PersonRow({ person, joined, onChanged }: { person: Person; joined: string; onChanged: () => Promise<void> }) {
  const t = useT();
  const [confirming, setConfirming] = useState(false);
  const role = useMutation({ mutationFn: (next: GivenRole) => changeRole(person.id, next), onSuccess: onChanged });
  const remove = useMutation({ mutationFn: () => removePerson(person.id), onSuccess: onChanged });
  const error = role.error ?? remove.error;
  return (
    <tr className="border-t border-zinc-100 dark:border-zinc-800" data-testid={`person-${person.id}`}>
      <td className="px-4 py-2 font-medium" translate="no" data-testid="person-name">
        {person.name}
      </td>
      <td className="px-4 py-2">
        {person.role === "owner" ? (
          t("people.role.owner")
        ) : (
          <select
            aria-label={t("people.changeRole", { name: person.name })}
            className={inputClass}
            value={person.role}
            disabled={role.isPending}
            onChange={(e) => role.mutate(e.target.value as GivenRole)}
            data-testid="person-role"
          >
            {GIVEN_ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`people.role.${r}` as MessageKey)}
              </option>
            ))}
          </select>
        )}
      </td>
      <td className="px-4 py-2 text-zinc-500">{joined}</td>
      <td className="px-4 py-2 text-right">
        {person.role === "owner" ? null : confirming ? (
          <span className="inline-flex items-center gap-2">
            <span className="text-xs">{t("people.removeConfirm", { name: person.name })}</span>
            <button type="button" className={buttonDanger} onClick={() => remove.mutate()} disabled={remove.isPending} data-testid="person-remove-confirm">
              {remove.isPending ? t("people.removing") : t("people.removeYes")}
            </button>
            <button type="button" className={buttonSecondary} onClick={() => setConfirming(false)}>
              {t("common.cancel")}
            </button>
          </span>
        ) : (
          <button type="button" className={buttonSecondary} onClick={() => setConfirming(true)} data-testid="person-remove">
            {t("people.remove")}
          </button>
        )}
        {error ? <p className="mt-1 text-xs text-red-600">{t("people.failed", { message: error.message })}</p> : null}
      </td>
    </tr>
  );
}
