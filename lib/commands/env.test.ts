import { describe, expect, it } from "vitest";
import { COMMAND_ID_VARIABLE, commandEnvironment, isWithheldVariable } from "./env";

describe("commandEnvironment", () => {
  const server = {
    PATH: "/usr/bin:/bin",
    HOME: "/home/x",
    LANG: "C.UTF-8",
    OPENAI_API_KEY: "sk-1",
    OPENAI_BASE_URL: "http://x",
    DASHSCOPE_API_KEY: "sk-2",
    GITHUB_TOKEN: "ghp",
    NPM_TOKEN: "npm",
    AWS_SECRET_ACCESS_KEY: "aws",
    DB_PASSWORD: "pw",
    MY_CLIENT_SECRET: "s",
    ASTRION_HOME: "/data",
    ASTRION_ACCESS_TOKEN: "t",
    PORT: "3000",
    HOST: "127.0.0.1",
    NODE_ENV: "production",
    NEXT_RUNTIME: "nodejs",
    __NEXT_PRIVATE_ORIGIN: "x",
    FAKE_OPENAI_KEY: "k",
    ODDLY_NAMED: "secret-by-registry",
    TOKENIZERS_PARALLELISM: "false",
  };

  it("keeps the ordinary variables and withholds secrets and the app's own", () => {
    const env = commandEnvironment(server, new Set(["ODDLY_NAMED"]), "abc");
    expect(env).toEqual({ PATH: "/usr/bin:/bin", HOME: "/home/x", LANG: "C.UTF-8", TOKENIZERS_PARALLELISM: "false", [COMMAND_ID_VARIABLE]: "abc" });
  });

  it("judges names by their parts, whatever the case", () => {
    expect(isWithheldVariable("github_token")).toBe(true);
    expect(isWithheldVariable("ANTHROPIC_AUTH_TOKEN")).toBe(true);
    expect(isWithheldVariable("SOME_API_KEY")).toBe(true);
    expect(isWithheldVariable("SOMEAPIKEY")).toBe(false);
    expect(isWithheldVariable("KEYBOARD")).toBe(false);
    expect(isWithheldVariable("SSH_AUTH_SOCK")).toBe(false);
  });
});
