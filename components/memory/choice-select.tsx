"use client";

import { inputClass, labelClass } from "@/components/ui/styles";

/** One choice of a {@link ChoiceSelect}. */
export interface Choice<T extends string> {
  value: T;
  label: string;
}

/** A labelled select over fixed choices (the Memory page's filters and its entry form share it). */
export function ChoiceSelect<T extends string>({
  label,
  value,
  choices,
  onChange,
  testId,
}: {
  label: string;
  value: T;
  choices: ReadonlyArray<Choice<T>>;
  onChange: (value: T) => void;
  testId: string;
}) {
  return (
    <label className={labelClass}>
      {label}
      <select className={`${inputClass} mt-1`} value={value} onChange={(e) => onChange(e.target.value as T)} data-testid={testId}>
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}
