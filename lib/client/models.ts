/** Query factories and commands of Settings → Models (`/api/models/…`). */
import { queryOptions } from "@tanstack/react-query";
import {
  DiscoveryReportSchema,
  ModelSettingsSchema,
  UpstreamModelsSchema,
  type ApiKeyChange,
  type CreateModelEntryBody,
  type UpdateModelEntryBody,
} from "@/lib/model-settings/schema";
import { apiFetch } from "./api";

/** `GET /api/models/entries`: models.json as the editor sees it, with its etag. */
export function modelSettingsQuery() {
  return queryOptions({
    queryKey: ["model-settings"] as const,
    queryFn: ({ signal }) => apiFetch("/api/models/entries", ModelSettingsSchema, { signal }),
    // The form holds the etag it read: a background refetch must not swap it under the person.
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });
}

/** `GET /api/models/discovery`: the model servers last found on 127.0.0.1. */
export function discoveryQuery() {
  return queryOptions({
    queryKey: ["model-discovery"] as const,
    queryFn: ({ signal }) => apiFetch("/api/models/discovery", DiscoveryReportSchema, { signal }),
    staleTime: 30_000,
  });
}

/** `POST /api/models/discovery`: looks again now. */
export function rescanLocalServers() {
  return apiFetch("/api/models/discovery", DiscoveryReportSchema, { method: "POST", body: {} });
}

/** `POST /api/models/entries`. */
export function addModelEntry(body: CreateModelEntryBody) {
  return apiFetch("/api/models/entries", ModelSettingsSchema, { method: "POST", body });
}

/** `PUT /api/models/entries/{key}`. */
export function saveModelEntry(key: string, body: UpdateModelEntryBody) {
  return apiFetch(`/api/models/entries/${encodeURIComponent(key)}`, ModelSettingsSchema, { method: "PUT", body });
}

/** `DELETE /api/models/entries/{key}`. */
export function removeModelEntry(key: string, etag: string) {
  return apiFetch(`/api/models/entries/${encodeURIComponent(key)}`, ModelSettingsSchema, { method: "DELETE", body: { etag } });
}

/** `PUT /api/models/default`. */
export function setDefaultModelKey(key: string, etag: string) {
  return apiFetch("/api/models/default", ModelSettingsSchema, { method: "PUT", body: { key, etag } });
}

/** `POST /api/models/upstream`: the models the server at `baseUrl` lists. */
export function fetchUpstreamModels(body: { base_url: string; key?: string; api_key?: ApiKeyChange }) {
  return apiFetch("/api/models/upstream", UpstreamModelsSchema, { method: "POST", body });
}
