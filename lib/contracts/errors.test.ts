import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AstrionError, ConflictError, NotFoundError, ValidationError, zodIssues } from "./errors";

/** A second copy of the classes, as a second Next bundle of lib/contracts/errors would hold. */
async function secondCopy() {
  const { vi } = await import("vitest");
  vi.resetModules();
  const specifier = "./errors?copy";
  return (await import(/* @vite-ignore */ specifier)) as typeof import("./errors");
}

describe("AstrionError", () => {
  it("maps codes to statuses and names the subclass", () => {
    const e = new NotFoundError("gone");
    expect(e.status).toBe(404);
    expect(e.name).toBe("NotFoundError");
    expect(new ConflictError("x").status).toBe(409);
    expect(new ValidationError("x").status).toBe(400);
  });

  it("is recognized across module copies, subclass by subclass", async () => {
    const other = await secondCopy();
    expect(other.AstrionError).not.toBe(AstrionError);
    const foreign = new other.NotFoundError("from another bundle");
    expect(foreign instanceof AstrionError).toBe(true);
    expect(foreign instanceof NotFoundError).toBe(true);
    expect(foreign instanceof ConflictError).toBe(false);
    expect(new Error("plain") instanceof AstrionError).toBe(false);
    expect((null as unknown) instanceof AstrionError).toBe(false);
  });

  it("keeps ordinary instanceof for subclasses without their own kind", () => {
    class Local extends AstrionError {}
    expect(new Local("conflict", "x") instanceof Local).toBe(true);
    expect(new NotFoundError("x") instanceof Local).toBe(false);
  });

  it("lists zod issues by path", () => {
    expect(zodIssues({ issues: [{ path: ["fields", "name"], message: "required" }] })).toEqual([{ path: "fields.name", message: "required" }]);
  });

  it("gives a limit its code and its bound, so a page can word it; never the zod error's JSON", () => {
    const schema = z.object({ content: z.string().trim().min(1).max(100_000, "at most 100,000 characters"), tags: z.array(z.string()).max(2), n: z.number().max(5) });
    const parsed = schema.safeParse({ content: "x".repeat(100_001), tags: ["a", "b", "c"], n: 6 });
    expect(parsed.success).toBe(false);
    const issues = zodIssues(parsed.error!);
    expect(issues).toEqual([
      { path: "content", message: "at most 100,000 characters", code: "too_long", limit: 100_000 },
      { path: "tags", message: expect.any(String), code: "too_many", limit: 2 },
      { path: "n", message: expect.any(String), code: "too_big", limit: 5 },
    ]);
    expect(JSON.stringify(issues)).not.toContain('"origin"');
    const empty = zodIssues(schema.safeParse({ content: " ", tags: [], n: 1 }).error!);
    expect(empty[0]).toMatchObject({ path: "content", code: "too_short", limit: 1 });
  });
});
