import { answer, route } from "@/lib/http";
import { TOKEN_COOKIE } from "@/lib/security";
import { SignOutResponseSchema } from "@/lib/contracts/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Forgets the access token in this browser: the cookie is expired. Needs no token (it only
 * removes one); the proxy's Origin and content-type checks keep other sites from calling it.
 */
export const POST = route(async () => {
  const response = answer(SignOutResponseSchema, { signed_out: true });
  response.cookies.set(TOKEN_COOKIE, "", { httpOnly: true, sameSite: "strict", path: "/", secure: false, maxAge: 0, expires: new Date(0) });
  return response;
});
