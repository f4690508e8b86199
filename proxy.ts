/**
 * Localhost safety for every request (pages, API, assets): Host allowlist against DNS
 * rebinding, JSON-only and same-origin state changes against cross-site forms, and the optional
 * access token. The rules live in lib/security; this file only adapts them to Next's proxy.
 * No CORS headers are ever added, so other origins cannot read our answers.
 */
import { NextResponse, type NextRequest } from "next/server";
import { checkRequest, guardConfigFromEnv, TOKEN_COOKIE } from "@/lib/security";

/** A path no route matches, so rewriting to it renders app/not-found.tsx. */
const NOT_FOUND_PATH = "/_astrion/not-found";

export function proxy(request: NextRequest) {
  const verdict = checkRequest(
    {
      method: request.method,
      pathname: request.nextUrl.pathname,
      host: request.headers.get("host"),
      origin: request.headers.get("origin"),
      contentType: request.headers.get("content-type"),
      authorization: request.headers.get("authorization"),
      tokenCookie: request.cookies.get(TOKEN_COOKIE)?.value ?? null,
    },
    guardConfigFromEnv(),
  );
  if (verdict.ok) return NextResponse.next();
  if (verdict.notFoundPage) {
    // A page path that cannot be decoded names nothing: the app's own not-found page, as 404.
    return NextResponse.rewrite(new URL(NOT_FOUND_PATH, request.url), { status: 404 });
  }
  if (verdict.redirectToSignIn) {
    const url = request.nextUrl.clone();
    url.pathname = "/signin";
    url.search = `?next=${encodeURIComponent(request.nextUrl.pathname + request.nextUrl.search)}`;
    return NextResponse.redirect(url);
  }
  return NextResponse.json({ error: { code: verdict.code, message: verdict.message } }, { status: verdict.status });
}
