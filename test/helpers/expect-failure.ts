/** Awaiting a model call that must fail: its ModelCallError, or the test fails. */
import { expect } from "vitest";
import { ModelCallError } from "@/lib/models/types";

/** Resolves with the ModelCallError `promise` rejects with; fails the test if it resolves or throws anything else. */
export async function failure(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ModelCallError);
    return error as ModelCallError;
  }
  throw new Error("expected the call to fail");
}
