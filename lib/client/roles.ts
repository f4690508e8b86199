/** Query factories and fetchers for the role library. */
import { queryOptions } from "@tanstack/react-query";
import { DeletedResponseSchema } from "@/lib/contracts/http";
import {
  RoleAnyResponseSchema,
  RoleListResponseSchema,
  RoleResponseSchema,
  type CreateRoleBody,
  type ImportRoleBody,
  type RawRoleBody,
  type RenameRoleFileBody,
  type UpdateRoleBody,
} from "@/lib/roles/schema";
import { apiFetch } from "./api";

export const roleKeys = {
  all: ["roles"] as const,
  list: () => [...roleKeys.all, "list"] as const,
  detail: (id: string) => [...roleKeys.all, "detail", id] as const,
  file: (name: string) => [...roleKeys.all, "file", name] as const,
};

/** Every role file in the library, including the ones that do not load. */
export function roleListQuery() {
  return queryOptions({
    queryKey: roleKeys.list(),
    queryFn: async ({ signal }) => (await apiFetch("/api/roles", RoleListResponseSchema, { signal })).roles,
  });
}

/** One role file, loaded or not. */
export function roleQuery(id: string) {
  return queryOptions({
    queryKey: roleKeys.detail(id),
    queryFn: async ({ signal }) =>
      (await apiFetch(`/api/roles/${encodeURIComponent(id)}`, RoleAnyResponseSchema, { signal })).role,
    // The editor holds the etag of what it read; a background refetch must not swap it under the user.
    refetchOnWindowFocus: false,
  });
}

/** `POST /api/roles`. */
export async function createRole(body: CreateRoleBody) {
  return (await apiFetch("/api/roles", RoleResponseSchema, { method: "POST", body })).role;
}

/** `PUT /api/roles/[id]`, from the form or as raw text. A raw save may leave the file still broken. */
export async function updateRole(id: string, body: UpdateRoleBody) {
  return (await apiFetch(`/api/roles/${encodeURIComponent(id)}`, RoleAnyResponseSchema, { method: "PUT", body })).role;
}

/** `DELETE /api/roles/[id]`. */
export async function deleteRole(id: string) {
  return apiFetch(`/api/roles/${encodeURIComponent(id)}`, DeletedResponseSchema, { method: "DELETE", body: {} });
}

/** `POST /api/roles/import`. */
export async function importRole(body: ImportRoleBody) {
  return (await apiFetch("/api/roles/import", RoleResponseSchema, { method: "POST", body })).role;
}

const fileUrl = (name: string) => `/api/role-files?name=${encodeURIComponent(name)}`;

/** One role file by its exact name (a file whose name is no valid id). */
export function roleFileQuery(name: string) {
  return queryOptions({
    queryKey: roleKeys.file(name),
    queryFn: async ({ signal }) => (await apiFetch(fileUrl(name), RoleAnyResponseSchema, { signal })).role,
    refetchOnWindowFocus: false,
  });
}

/** `PUT /api/role-files?name=…`: the raw text of a role file by its exact name. */
export async function saveRoleFile(name: string, body: RawRoleBody) {
  return (await apiFetch(fileUrl(name), RoleAnyResponseSchema, { method: "PUT", body })).role;
}

/** `DELETE /api/role-files?name=…`. */
export async function deleteRoleFile(name: string) {
  return apiFetch(fileUrl(name), DeletedResponseSchema, { method: "DELETE", body: {} });
}

/** `POST /api/role-files/rename`: gives a misnamed file a valid id (the suggested one by default). */
export async function renameRoleFile(body: RenameRoleFileBody) {
  return (await apiFetch("/api/role-files/rename", RoleAnyResponseSchema, { method: "POST", body })).role;
}
