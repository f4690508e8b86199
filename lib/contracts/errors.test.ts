import { describe, expect, it } from "vitest";
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
});
