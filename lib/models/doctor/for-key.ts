import "server-only";
/**
 * The connection doctor for a model key of a data folder's registry (models.json with the
 * environment applied, as the server reads it): what the route and the command line both call.
 */
import type { DoctorReport } from "@/lib/contracts/http";
import { ValidationError } from "@/lib/contracts/errors";
import { loadRegistry, resolveModel } from "../registry";
import { runDoctor, type DoctorOptions } from "./run";

/**
 * Runs the doctor on `key` of the registry in `root`.
 * @throws NotFoundError naming the known keys; ValidationError for the built-in offline model.
 */
export async function doctorForKey(root: string, key: string, options: DoctorOptions = {}): Promise<DoctorReport> {
  const entry = resolveModel(await loadRegistry(root), key);
  if (entry.provider === "offline") throw new ValidationError(`Model "${key}" is the built-in offline model: there is no connection to test.`);
  return runDoctor(key, entry, options);
}
