import { AstrionError } from "@/lib/contracts/errors";
import { answer, readBody, route } from "@/lib/http";
import { SignInBodySchema, SignInResponseSchema } from "@/lib/contracts/http";
import { clientAddressOf, guardConfigFromEnv, safeEqual, safeNextPath, TOKEN_COOKIE } from "@/lib/security";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Checks the access token and keeps it in an HttpOnly, same-site cookie; answers the same-origin
 * path to go to next. Wrong guesses are throttled per client address: a locked-out client gets
 * 429 with Retry-After before its token is even compared.
 */
export const POST = route(async (request) => {
  const { token, next } = await readBody(request, SignInBodySchema);
  const target = safeNextPath(next);
  const expected = guardConfigFromEnv().token;
  if (!expected) return answer(SignInResponseSchema, { signed_in: true, required: false, next: target });
  const throttle = (await getApp()).signInThrottle;
  // From here on nothing awaits, so concurrent guesses cannot all pass one check.
  const client = clientAddressOf(request.headers);
  const now = Date.now();
  const verdict = throttle.check(client, now);
  if (!verdict.ok) {
    const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    throw new AstrionError("rate_limited", `Too many wrong tokens; try again in ${seconds} s.`, { retry_after_seconds: seconds });
  }
  if (!safeEqual(token, expected)) {
    throttle.recordFailure(client, now);
    throw new AstrionError("unauthorized", "That token is not right.");
  }
  throttle.recordSuccess(client);
  const response = answer(SignInResponseSchema, { signed_in: true, required: true, next: target });
  response.cookies.set(TOKEN_COOKIE, token, { httpOnly: true, sameSite: "strict", path: "/", secure: false });
  return response;
});
