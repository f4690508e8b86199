/**
 * Public face of localhost safety: the request guard (Host, Origin, content-type, token), the
 * sign-in redirect rule, client addresses, the sign-in throttle, and who a request is from with
 * the role each route needs (issue 32). Pure rules, no I/O.
 */
export { checkRequest, guardConfigFromEnv, hasValidToken, isPublicAsset, isPublicRequest, safeEqual, TOKEN_COOKIE } from "./request-guard";
export { decodeIdentity, encodeIdentity, IDENTITY_HEADER, ownerIdentity, SESSION_COOKIE } from "./identity";
export { neededRole } from "./route-roles";
export { safeNextPath } from "./safe-next";
export { clientAddressOf } from "./client-address";
export { SignInThrottle, signInThrottleConfigFromEnv, type SignInThrottleConfig, type ThrottleVerdict } from "./signin-throttle";
export { MemorySignInGuard, type SignInGuard } from "./signin-guard";
