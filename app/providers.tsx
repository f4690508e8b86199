"use client";

import { QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { getQueryClient } from "@/lib/client/get-query-client";
import { I18nProvider, type Locale } from "@/lib/i18n";

/** The app's only client-side providers: React Query and the locale the server chose. */
export function Providers({ locale, children }: { locale: Locale; children: ReactNode }) {
  const queryClient = getQueryClient();
  return (
    <QueryClientProvider client={queryClient}>
      <I18nProvider locale={locale}>{children}</I18nProvider>
    </QueryClientProvider>
  );
}
