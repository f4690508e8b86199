/**
 * Public face of the input limits: how large a request body may be per route, and how JSON from
 * outside is parsed with bounded work. Pure (no I/O): used by the request guard, the proxy, the
 * route helpers and the tool-argument parser alike.
 */
export { BODY_LIMITS, bodyLimitFor, DEFAULT_BODY_LIMIT, isBodyMethod, MAX_BODY_LIMIT } from "./body";
export { jsonDepthOver, MAX_JSON_DEPTH, parseJsonWithin } from "./json";
