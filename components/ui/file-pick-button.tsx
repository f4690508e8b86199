"use client";

import type { ReactNode } from "react";
import { buttonSecondary } from "./styles";

/**
 * A button that opens the browser's file picker (a label around a hidden file input, so it is
 * reachable by keyboard). Hands over the picked file, then clears the input, so picking the same
 * file again is a new pick.
 */
export function FilePickButton({ accept, disabled, testId, onFile, children }: { accept: string; disabled?: boolean; testId: string; onFile: (file: File) => void; children: ReactNode }) {
  return (
    <label className={`${buttonSecondary} cursor-pointer has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-indigo-500`}>
      <input
        type="file"
        accept={accept}
        className="sr-only"
        onChange={(e) => {
          const input = e.currentTarget;
          const file = input.files?.[0];
          input.value = "";
          if (file) onFile(file);
        }}
        disabled={disabled}
        data-testid={testId}
      />
      {children}
    </label>
  );
}
