/**
 * Public face of localhost safety: the request guard (Host, Origin, content-type, token), the
 * sign-in redirect rule, client addresses and the sign-in throttle. Pure rules, no I/O.
 */
export { checkRequest, guardConfigFromEnv, hasValidToken, safeEqual, TOKEN_COOKIE } from "./request-guard";
export { safeNextPath } from "./safe-next";
export { clientAddressOf } from "./client-address";
export { SignInThrottle, signInThrottleConfigFromEnv } from "./signin-throttle";
