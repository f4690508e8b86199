import "server-only";
/**
 * Where the redaction pass's configured account-id patterns live: the top-level `redaction`
 * object of `models.json` (`{"redaction": {"account_patterns": ["acct_{alnum:16}"]}}`), edited by
 * hand or from the Settings page (which rewrites only that key, atomically). A pattern that is
 * refused stops memory writes with an error naming it, rather than letting ids through unmasked.
 */
import { z } from "zod";
import { ValidationError } from "@/lib/contracts/errors";
import { defaultModelsFile, modelsFilePath, ModelsFileSchema } from "@/lib/models";
import { NotFoundError } from "@/lib/contracts/errors";
import { readJsonFile, updateJsonFile, type FileQueues } from "@/lib/store";
import { accountIdPatternsSchema, compileAccountPatterns, type CompiledAccountPattern } from "@/lib/redaction/account-patterns";

/** The `redaction` object of models.json. */
const RedactionSettingsSchema = z.object({ account_patterns: accountIdPatternsSchema.default([]) });
export type RedactionSettings = z.infer<typeof RedactionSettingsSchema>;

/** The configured patterns as written (empty when models.json or its `redaction` key is missing). */
export async function readRedactionSettings(root: string): Promise<RedactionSettings> {
  let file: Record<string, unknown>;
  try {
    file = (await readJsonFile(modelsFilePath(root), ModelsFileSchema)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof NotFoundError) return { account_patterns: [] };
    throw error;
  }
  if (!Object.prototype.hasOwnProperty.call(file, "redaction")) return { account_patterns: [] };
  const parsed = RedactionSettingsSchema.safeParse(file.redaction);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(`models.json: "redaction" is not valid: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid"}`);
  }
  return parsed.data;
}

/** The compiled patterns; throws a ValidationError naming a refused pattern. */
export async function accountPatternsFor(root: string): Promise<CompiledAccountPattern[]> {
  return compileAccountPatterns((await readRedactionSettings(root)).account_patterns);
}

/**
 * Checks and stores the patterns in models.json (every other key kept), queued in the process's
 * `queues` behind every other write of the file; returns what was stored.
 */
export async function writeRedactionSettings(queues: FileQueues, root: string, settings: RedactionSettings): Promise<RedactionSettings> {
  compileAccountPatterns(settings.account_patterns);
  await updateJsonFile(queues, modelsFilePath(root), ModelsFileSchema, (current) => ({ ...current, redaction: { account_patterns: settings.account_patterns } }), {
    create: defaultModelsFile,
  });
  return { account_patterns: [...settings.account_patterns] };
}

/** What is wrong with the configured patterns, for /api/health; null when they compile. */
export async function redactionProblem(root: string): Promise<string | null> {
  try {
    await accountPatternsFor(root);
    return null;
  } catch (error) {
    // A broken models.json is reported on its own by the registry's check.
    if (error instanceof ValidationError) return error.message;
    return null;
  }
}
