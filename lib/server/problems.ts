import "server-only";
/**
 * Every file of the data folder known to be unusable, for `/api/health`: what the store met while
 * loading (index, state, conversation metadata, and any messages.json or agent file read since
 * start-up), plus `models.json`. Nothing here scans the conversations: the store records problems
 * as it meets them, so a health call costs one read of models.json.
 */
import type { StoreProblem } from "@/lib/api/contract";
import { registryProblem } from "@/lib/models";
import type { AstrionApp } from "./app";

/** The store's recorded problems and models.json's, sorted by file. */
export async function collectProblems(app: Pick<AstrionApp, "root" | "store">): Promise<StoreProblem[]> {
  const problems = [...app.store.problems()];
  const models = await registryProblem(app.root);
  if (models) problems.push(models);
  return problems.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
