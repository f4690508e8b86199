import { AstrionError } from "@/lib/errors";
import { json, readBody, route } from "@/lib/http";
import { SignInBodySchema } from "@/lib/api/contract";
import { safeEqual, TOKEN_COOKIE } from "@/lib/security/request-guard";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Checks the access token and keeps it in an HttpOnly, same-site cookie. */
export const POST = route(async (request) => {
  const { token } = await readBody(request, SignInBodySchema);
  const expected = process.env.ASTRION_TOKEN;
  if (!expected) return json({ signed_in: true, required: false });
  if (!safeEqual(token, expected)) throw new AstrionError("unauthorized", "That token is not right.");
  const response = json({ signed_in: true, required: true });
  response.cookies.set(TOKEN_COOKIE, token, { httpOnly: true, sameSite: "strict", path: "/", secure: false });
  return response;
});
