"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { cardClass, inputClass, labelClass } from "@/components/ui/styles";
import type { Person } from "@/lib/contracts/people";
import { activityQuery } from "@/lib/client";
import { en, useLocale, useT, type MessageKey } from "@/lib/i18n";

/**
 * Who changed a role file, a setting or the people, and when (`activity.jsonl`), newest first;
 * the filter shows one person's changes.
 */
export function ActivityList({ people }: { people: readonly Person[] }) {
  const t = useT();
  const locale = useLocale();
  const [person, setPerson] = useState<string | null>(null);
  const activity = useQuery(activityQuery(person));
  const records = [...(activity.data?.records ?? [])].reverse();
  const time = new Intl.DateTimeFormat(locale, { dateStyle: "short", timeStyle: "medium" });
  return (
    <section className={`${cardClass} p-4`}>
      <div className="mb-3 flex flex-wrap items-end justify-between gap-3">
        <h2 className="text-sm font-semibold">{t("people.activity")}</h2>
        <div>
          <label htmlFor="activity-person" className={labelClass}>
            {t("people.filter.person")}
          </label>
          <select id="activity-person" className={`${inputClass} mt-1`} value={person ?? ""} onChange={(e) => setPerson(e.target.value || null)} data-testid="activity-person">
            <option value="">{t("people.filter.everyone")}</option>
            {people.map((p) => (
              <option key={p.id} value={p.id} translate="no">
                {p.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      {activity.data && records.length === 0 ? <p className="text-sm text-zinc-500">{t("people.activity.none")}</p> : null}
      <ul className="space-y-1 text-sm" data-testid="activity-list">
        {records.map((r) => {
          const key = `activity.action.${r.action}`;
          return (
            <li key={r.envelope.message_id} className="flex flex-wrap gap-x-2" data-testid="activity-item">
              <span className="text-zinc-500">{time.format(new Date(r.timestamp))}</span>
              <span className="font-medium" translate="no">
                {r.envelope.author?.name ?? r.from_agent}
              </span>
              {Object.hasOwn(en, key) ? <span>{t(key as MessageKey)}</span> : <code>{r.action}</code>}
              {r.resource ? <code className="text-xs text-zinc-500">{r.resource}</code> : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
