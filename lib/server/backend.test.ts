import { describe, expect, it } from "vitest";
import { BackendConfigError, backendConfigFromEnv, DATABASE_URL_VARIABLE, REDIS_URL_VARIABLE } from "./backend";

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
