/**
 * Localhost safety for every request (pages, API, assets): Host allowlist against DNS
 * rebinding, JSON-only and same-origin state changes against cross-site forms, and the optional
 * access token. The rules live in lib/security; this file only adapts them to Next's proxy.
 * No CORS headers are ever added, so other origins cannot read our answers.
 */
import { NextResponse, type NextRequest } from "next/server";
import { bodyLimitFor } from "@/lib/input-limits";
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
  if (verdict.ok) {
    // A declared length over the route's limit is refused without the body being parsed. The
    // server's body guard (lib/server/body-guard.ts) normally answers this before Next reads
    // anything; this check covers a request that reached Next without passing the guard.
    const limit = bodyLimitFor(request.method, request.nextUrl.pathname);
    if (limit !== null && Number(request.headers.get("content-length") ?? "0") > limit) {
      return NextResponse.json(
        { error: { code: "payload_too_large", message: `The request body is larger than ${limit} bytes.` } },
        { status: 413, headers: { connection: "close" } },
      );
    }
    return NextResponse.next();
  }
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
