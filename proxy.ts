/**
 * Localhost safety and who may do what, for every request (pages, API, assets): Host allowlist
 * against DNS rebinding, JSON-only and same-origin state changes against cross-site forms, the
 * optional access token, and in team mode (ASTRION_TOKEN set, issue 32) the person's session and
 * the role the route needs (lib/security/route-roles.ts, the one table of them). The rules live
 * in lib/security; this file adapts them to Next's proxy, looks the session up through the
 * server's core, and hands the route the identity it found in one header (lib/security/identity.ts),
 * removing any a client sent. No CORS headers are ever added, so other origins cannot read our answers.
 */
import { NextResponse, type NextRequest } from "next/server";
import { roleAllows, type Identity, type PersonRole } from "@/lib/contracts/people";
import { resolveLocale, LOCALE_COOKIE } from "@/lib/i18n/locale";
import { translate } from "@/lib/i18n/translate";
import { bodyLimitFor } from "@/lib/input-limits";
import { checkRequest, encodeIdentity, guardConfigFromEnv, hasValidToken, IDENTITY_HEADER, isPublicAsset, isPublicRequest, neededRole, ownerIdentity, SESSION_COOKIE, TOKEN_COOKIE } from "@/lib/security";
import { getApp } from "@/lib/server/get-app";

/** A path no route matches, so rewriting to it renders app/not-found.tsx. */
const NOT_FOUND_PATH = "/_astrion/not-found";

/** The person a team-mode request is from: the token's owner, a session's person, or nobody. */
async function identify(request: NextRequest, tokenOk: boolean): Promise<Identity | null> {
  if (tokenOk) return ownerIdentity("token");
  if (!request.cookies.has(SESSION_COOKIE)) return null;
  const people = (await getApp()).people;
  return people ? people.identify(request.headers) : null;
}

/** The 403 of a role that may not do this, in the page's language. */
function refusedForRole(request: NextRequest, role: PersonRole, needed: PersonRole) {
  const locale = resolveLocale(request.cookies.get(LOCALE_COOKIE)?.value, request.headers.get("accept-language"));
  const vars = { role: translate(locale, `people.role.${role}`), needed: translate(locale, `people.role.${needed}`) };
  return NextResponse.json(
    { error: { code: "forbidden", message: translate(locale, "people.forbidden", vars), details: { reason: "role", role, needed } } },
    { status: 403, headers: { "cache-control": "no-store" } },
  );
}

export async function proxy(request: NextRequest) {
  const config = guardConfigFromEnv();
  const { pathname } = request.nextUrl;
  const authorization = request.headers.get("authorization");
  const tokenCookie = request.cookies.get(TOKEN_COOKIE)?.value ?? null;
  const verdict = checkRequest(
    {
      method: request.method,
      pathname,
      host: request.headers.get("host"),
      origin: request.headers.get("origin"),
      contentType: request.headers.get("content-type"),
      authorization,
      tokenCookie,
      sessionCookie: request.cookies.has(SESSION_COOKIE),
    },
    config,
  );
  if (!verdict.ok) {
    if (verdict.notFoundPage) {
      // A page path that cannot be decoded names nothing: the app's own not-found page, as 404.
      return NextResponse.rewrite(new URL(NOT_FOUND_PATH, request.url), { status: 404 });
    }
    if (verdict.redirectToSignIn) return toSignIn(request);
    return NextResponse.json({ error: { code: verdict.code, message: verdict.message } }, { status: verdict.status });
  }
  // A declared length over the route's limit is refused without the body being parsed. The
  // server's body guard (lib/server/body-guard.ts) normally answers this before Next reads
  // anything; this check covers a request that reached Next without passing the guard.
  const limit = bodyLimitFor(request.method, pathname);
  if (limit !== null && Number(request.headers.get("content-length") ?? "0") > limit) {
    return NextResponse.json(
      { error: { code: "payload_too_large", message: `The request body is larger than ${limit} bytes.` } },
      { status: 413, headers: { connection: "close" } },
    );
  }
  const forged = request.headers.has(IDENTITY_HEADER);
  // No configuration: the person at the machine is the owner, and nothing else is looked up.
  if (!config.token) return forged ? passOn(request, null) : NextResponse.next();

  const isPublic = isPublicRequest(request.method, pathname);
  // Build output needs nobody: no session is looked up for a page's scripts and styles.
  if (isPublicAsset(request.method, pathname)) return forged ? passOn(request, null) : NextResponse.next();
  const identity = await identify(request, hasValidToken({ authorization, tokenCookie }, config));
  if (!identity && !isPublic) {
    // A session cookie that names no session any more (signed out, removed): sign in again.
    const isApi = pathname === "/api" || pathname.startsWith("/api/");
    if (!isApi && (request.method === "GET" || request.method === "HEAD")) return toSignIn(request);
    return NextResponse.json({ error: { code: "unauthorized", message: "Your session has ended; sign in again at /signin." } }, { status: 401 });
  }
  const needed = neededRole(request.method, pathname);
  if (identity && needed !== "public" && !roleAllows(identity.role, needed)) return refusedForRole(request, identity.role, needed);
  return passOn(request, identity);
}

/** Goes on to the route with `identity` in its header (and without any a client sent). */
function passOn(request: NextRequest, identity: Identity | null) {
  const headers = new Headers(request.headers);
  headers.delete(IDENTITY_HEADER);
  if (identity) headers.set(IDENTITY_HEADER, encodeIdentity(identity));
  return NextResponse.next({ request: { headers } });
}

/** The sign-in page, coming back to where the person was. */
function toSignIn(request: NextRequest) {
  const url = request.nextUrl.clone();
  url.pathname = "/signin";
  url.search = `?next=${encodeURIComponent(request.nextUrl.pathname + request.nextUrl.search)}`;
  return NextResponse.redirect(url);
}
