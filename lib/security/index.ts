/**
 * Public face of localhost safety: the request guard (Host, Origin, content-type, token), the
 * sign-in redirect rule, client addresses and the sign-in throttle. Pure rules, no I/O.
 */
export {
  checkRequest,
  guardConfigFromEnv,
  hasMalformedEncoding,
  hasValidToken,
  hostName,
  isAllowedHost,
  isAllowedOrigin,
  isPublicAsset,
  safeEqual,
  TOKEN_COOKIE,
  type GuardConfig,
  type GuardRequest,
  type GuardVerdict,
} from "./request-guard";
export { DEFAULT_NEXT, safeNextPath } from "./safe-next";
export { CLIENT_ADDRESS_HEADER, CLIENT_ADDRESS_STAMPED_ENV, clientAddressOf, normalizeAddress, UNKNOWN_CLIENT } from "./client-address";
export {
  DEFAULT_SIGNIN_THROTTLE,
  SignInThrottle,
  signInThrottleConfigFromEnv,
  type SignInThrottleConfig,
  type ThrottleVerdict,
} from "./signin-throttle";
