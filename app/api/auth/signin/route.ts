import { AstrionError } from "@/lib/contracts/errors";
import { answer, readBody, route } from "@/lib/http";
import { SignInBodySchema, SignInResponseSchema } from "@/lib/contracts/http";
import { clientAddressOf, guardConfigFromEnv, safeEqual, safeNextPath, TOKEN_COOKIE } from "@/lib/security";
import { getApp } from "@/lib/server/get-app";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Signs in with the access token (the owner: kept in an HttpOnly, same-site cookie) or, in team
 * mode, with a person's name and password (a Better Auth session cookie); answers the same-origin
 * path to go to next. Wrong guesses of either kind are throttled per client address: a
 * locked-out client gets 429 with Retry-After before anything is compared.
 */
export const POST = route(async (request) => {
  const { token, name, password, next } = await readBody(request, SignInBodySchema);
  const target = safeNextPath(next);
  const expected = guardConfigFromEnv().token;
  if (!expected) return answer(SignInResponseSchema, { signed_in: true, required: false, next: target });
  const app = await getApp();
  const throttle = app.signInThrottle;
  // The check counts the guess as wrong before anything is compared (on Redis, for every
  // instance), so concurrent guesses cannot all pass one check; a right one clears the count.
  const client = clientAddressOf(request.headers);
  const verdict = await throttle.check(client);
  if (!verdict.ok) {
    const seconds = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    throw new AstrionError("rate_limited", `Too many wrong guesses; try again in ${seconds} s.`, { retry_after_seconds: seconds });
  }
  if (token !== undefined) {
    if (!safeEqual(token, expected)) {
      await throttle.recordFailure(client);
      throw new AstrionError("unauthorized", "That token is not right.");
    }
    await throttle.recordSuccess(client);
    const response = answer(SignInResponseSchema, { signed_in: true, required: true, next: target });
    response.cookies.set(TOKEN_COOKIE, token, { httpOnly: true, sameSite: "strict", path: "/", secure: false });
    return response;
  }
  const signed = app.people ? await app.people.signIn(name!, password!) : null;
  if (!signed) {
    await throttle.recordFailure(client);
    throw new AstrionError("unauthorized", "That name and password do not match.", { reason: "wrong_password" });
  }
  await throttle.recordSuccess(client);
  const response = answer(SignInResponseSchema, { signed_in: true, required: true, next: target, person: signed.person });
  for (const cookie of signed.cookies) response.headers.append("set-cookie", cookie);
  return response;
});
