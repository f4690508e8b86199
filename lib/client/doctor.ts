/** The connection doctor's command (`POST /api/models/{key}/doctor`). */
import { DoctorReportSchema } from "@/lib/contracts/http";
import { apiFetch } from "./api";

/** `POST /api/models/{key}/doctor`: tests one registry entry's connection (takes up to a minute). */
export function runModelDoctor(key: string) {
  return apiFetch(`/api/models/${encodeURIComponent(key)}/doctor`, DoctorReportSchema, { method: "POST", body: {} });
}
