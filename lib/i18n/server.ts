import "server-only";
import { cookies, headers } from "next/headers";
import { LOCALE_COOKIE, resolveLocale, type Locale } from "./locale";
import { makeTranslator, type TranslateFn } from "./translate";

/** The locale of the current request: the `astrion_locale` cookie, else `Accept-Language`, else English. */
export async function getLocale(): Promise<Locale> {
  const [cookieStore, headerList] = await Promise.all([cookies(), headers()]);
  return resolveLocale(cookieStore.get(LOCALE_COOKIE)?.value, headerList.get("accept-language"));
}

/** A translator for server components of the current request. */
export async function getT(): Promise<TranslateFn> {
  return makeTranslator(await getLocale());
}
