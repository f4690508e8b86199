import { describe, expect, it } from "vitest";
import { AstrionError } from "@/lib/contracts/errors";
import { ModelCallError, isRetryableFailure } from "./types";

describe("ModelCallError", () => {
  it("is an AstrionError with its own kind, reason and retryability", () => {
    const e = new ModelCallError("rate_limited", "slow down", { httpStatus: 429, modelKey: "m" });
    expect(e).toBeInstanceOf(AstrionError);
    expect(e).toBeInstanceOf(ModelCallError);
    expect(e.name).toBe("ModelCallError");
    expect(e.retryable).toBe(true);
    expect(e.httpStatus).toBe(429);
    expect(e.status).toBe(429);
    expect(new ModelCallError("client", "bad key").retryable).toBe(false);
    expect(new ModelCallError("client", "bad key").status).toBe(500);
    expect(new ModelCallError("server", "x", { retryable: false }).retryable).toBe(false);
  });

  it("marks only transient failures retryable", () => {
    expect(["rate_limited", "server", "timeout", "stalled", "network"].every((r) => isRetryableFailure(r as never))).toBe(true);
    expect(["client", "aborted", "bad_response"].some((r) => isRetryableFailure(r as never))).toBe(false);
  });
});
