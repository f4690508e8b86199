import { describe, expect, it } from "vitest";
import { BackendConfigError, backendConfigFromEnv, DATABASE_URL_VARIABLE, LEASE_MS_VARIABLE, leaseConfigFromEnv, REDIS_URL_VARIABLE, TAKEOVER_SCAN_MS_VARIABLE } from "./backend";

describe("backendConfigFromEnv", () => {
  it("is the data folder without either variable, or with both blank", () => {
    expect(backendConfigFromEnv({})).toEqual({ kind: "folder" });
    expect(backendConfigFromEnv({ [DATABASE_URL_VARIABLE]: " ", [REDIS_URL_VARIABLE]: "" })).toEqual({ kind: "folder" });
  });

  it("is PostgreSQL + Redis with both", () => {
    expect(backendConfigFromEnv({ [DATABASE_URL_VARIABLE]: " postgresql://u@h:5432/db ", [REDIS_URL_VARIABLE]: "redis://h:6379" })).toEqual({
      kind: "scaled",
      databaseUrl: "postgresql://u@h:5432/db",
      redisUrl: "redis://h:6379",
    });
    expect(backendConfigFromEnv({ [DATABASE_URL_VARIABLE]: "postgres://h/db", [REDIS_URL_VARIABLE]: "rediss://h" }).kind).toBe("scaled");
  });

  it("refuses one without the other, and a URL of another scheme, naming the variable", () => {
    expect(() => backendConfigFromEnv({ [DATABASE_URL_VARIABLE]: "postgresql://h/db" })).toThrow(new BackendConfigError(`${DATABASE_URL_VARIABLE} is set but ${REDIS_URL_VARIABLE} is not: set both (PostgreSQL + Redis) or neither (the data folder).`));
    expect(() => backendConfigFromEnv({ [REDIS_URL_VARIABLE]: "redis://h" })).toThrow(`${REDIS_URL_VARIABLE} is set but ${DATABASE_URL_VARIABLE} is not`);
    expect(() => backendConfigFromEnv({ [DATABASE_URL_VARIABLE]: "mysql://h/db", [REDIS_URL_VARIABLE]: "redis://h" })).toThrow(`${DATABASE_URL_VARIABLE} must be a postgres:// or postgresql:// URL.`);
    expect(() => backendConfigFromEnv({ [DATABASE_URL_VARIABLE]: "postgresql://h/db", [REDIS_URL_VARIABLE]: "http://h" })).toThrow(BackendConfigError);
  });
});

describe("leaseConfigFromEnv", () => {
  it("defaults to a 10 s lease scanned for takeovers every half of it, and follows the lease it is given", () => {
    expect(leaseConfigFromEnv({})).toEqual({ leaseMs: 10_000, takeoverScanMs: 5000 });
    expect(leaseConfigFromEnv({ [LEASE_MS_VARIABLE]: "2000" })).toEqual({ leaseMs: 2000, takeoverScanMs: 1000 });
    expect(leaseConfigFromEnv({ [LEASE_MS_VARIABLE]: "2000", [TAKEOVER_SCAN_MS_VARIABLE]: "250" })).toEqual({ leaseMs: 2000, takeoverScanMs: 250 });
  });

  it("refuses a value that is not a whole number in range, naming the variable", () => {
    for (const bad of ["abc", "1.5", "100", "-1"]) expect(() => leaseConfigFromEnv({ [LEASE_MS_VARIABLE]: bad })).toThrow(new BackendConfigError(`${LEASE_MS_VARIABLE} must be a whole number of milliseconds from 300 to 3600000.`));
    // A scan as slow as the lease could not replace a dead instance within twice it.
    expect(() => leaseConfigFromEnv({ [LEASE_MS_VARIABLE]: "2000", [TAKEOVER_SCAN_MS_VARIABLE]: "2000" })).toThrow(`${TAKEOVER_SCAN_MS_VARIABLE} must be a whole number of milliseconds from 50 to 1999.`);
  });
});
