import { answer, route } from "@/lib/http";
import { TOKEN_COOKIE } from "@/lib/security";
import { SignOutResponseSchema } from "@/lib/contracts/http";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Forgets the access token in this browser (the cookie is expired) and ends a person's session
 * (team mode: the session is deleted, so its cookie is worthless even if kept). Needs no token
 * (it only removes one); the proxy's Origin and content-type checks keep other sites from calling it.
 */
export const POST = route(async (request) => {
  const people = (await getApp()).people;
  const cleared = people ? await people.signOut(request.headers) : [];
  const response = answer(SignOutResponseSchema, { signed_out: true });
  response.cookies.set(TOKEN_COOKIE, "", { httpOnly: true, sameSite: "strict", path: "/", secure: false, maxAge: 0, expires: new Date(0) });
  for (const cookie of cleared) response.headers.append("set-cookie", cookie);
  return response;
});
