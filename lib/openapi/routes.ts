/**
 * The route table: every route file under app/api and the methods it serves, in the order the
 * HTTP API page lists them. lib/openapi/openapi.test.ts fails when it and app/api disagree.
 */
import { AGENT_ROUTES } from "./routes-agents";
import { CONVERSATION_ROUTES } from "./routes-conversations";
import { SETTINGS_ROUTES } from "./routes-settings";
import { SYSTEM_ROUTES } from "./routes-system";
import { PEOPLE_ROUTES } from "./routes-people";
import { HTTP_METHODS, type HttpMethod, type RouteSpec } from "./spec";

export const ROUTES: readonly RouteSpec[] = [...SYSTEM_ROUTES, ...PEOPLE_ROUTES, ...CONVERSATION_ROUTES, ...AGENT_ROUTES, ...SETTINGS_ROUTES];

/**
 * `app/api/[...path]/route.ts`: any other path under /api, for these methods, answers a JSON 404
 * (`not_found`) instead of an HTML page. Not a path of the document (a template cannot say "any
 * path not listed"); its description says so.
 */
export const CATCH_ALL: { file: string; methods: readonly HttpMethod[] } = { file: "app/api/[...path]/route.ts", methods: HTTP_METHODS };
