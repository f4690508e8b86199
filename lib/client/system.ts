/** Query factories for the server's health and its model registry. */
import { queryOptions } from "@tanstack/react-query";
import { HealthSchema, ModelListSchema, SignInBodySchema, SignInResponseSchema, SignOutResponseSchema } from "@/lib/contracts/http";
import { GatewayReportSchema } from "@/lib/gateway/schema";
import { apiFetch, bodyOf } from "./api";

/** `GET /api/models`: the registered models, never their keys. */
export function modelListQuery() {
  return queryOptions({
    queryKey: ["models"] as const,
    queryFn: ({ signal }) => apiFetch("/api/models", ModelListSchema, { signal }),
    staleTime: 5 * 60_000,
  });
}

/** `GET /api/health`. */
export function healthQuery() {
  return queryOptions({
    queryKey: ["health"] as const,
    queryFn: ({ signal }) => apiFetch("/api/health", HealthSchema, { signal }),
  });
}

/** `POST /api/auth/signin`; the server sets the session cookie and answers the safe path to go to. */
export async function signIn(token: string, next?: string) {
  return apiFetch("/api/auth/signin", SignInResponseSchema, { method: "POST", body: bodyOf(SignInBodySchema, { token, next }) });
}

/** `POST /api/auth/signout`; the server expires the session cookie. */
export async function signOut() {
  return apiFetch("/api/auth/signout", SignOutResponseSchema, { method: "POST", body: {} });
}

/** `GET /api/gateway`: the protocol gateway's sources and tools, never a header value. */
export function gatewayQuery() {
  return queryOptions({
    queryKey: ["gateway"] as const,
    queryFn: ({ signal }) => apiFetch("/api/gateway", GatewayReportSchema, { signal }),
  });
}
