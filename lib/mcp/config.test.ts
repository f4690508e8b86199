import { describe, expect, it } from "vitest";
import { destinationChange, expandVars, isNonSecretVariable, isShowable, MASK, MaskedValueError, maskServer, mcpLimitsFromEnv, mergeMasked, MissingVariableError, resolveServer, restartDelay, scrub } from "./config";
import { McpFileSchema } from "./schema";

describe("expandVars", () => {
  it("expands ${VAR} and ${VAR:-default} as Claude Code does", () => {
    expect(expandVars("Bearer ${TOKEN}", { TOKEN: "abc" })).toEqual({ ok: true, value: "Bearer abc" });
    expect(expandVars("${A:-fallback}/${B}", { B: "b" })).toEqual({ ok: true, value: "fallback/b" });
    // An empty variable takes the default, as `:-` does in a shell.
    expect(expandVars("${A:-x}", { A: "" })).toEqual({ ok: true, value: "x" });
    expect(expandVars("${A:-}", {})).toEqual({ ok: true, value: "" });
    expect(expandVars("no refs, $HOME stays", {})).toEqual({ ok: true, value: "no refs, $HOME stays" });
  });

  it("names every unset variable without a default", () => {
    expect(expandVars("${A} ${B} ${C:-c}", {})).toEqual({ ok: false, missing: ["A", "B"] });
    // Keys of Object.prototype are names like any other.
    expect(expandVars("${constructor}", {})).toEqual({ ok: false, missing: ["constructor"] });
  });
});

describe("resolveServer", () => {
  it("expands command, args, env, url and headers, and collects the secrets to scrub", () => {
    const stdio = resolveServer("gh", { command: "${BIN:-npx}", args: ["--dir", "${DIR}"], env: { GITHUB_TOKEN: "${GH}", LITERAL: "sk-literal-123" } }, { DIR: "/tmp/x", GH: "ghp_secretvalue" });
    expect(stdio).toMatchObject({ type: "stdio", command: "npx", args: ["--dir", "/tmp/x"], env: { GITHUB_TOKEN: "ghp_secretvalue", LITERAL: "sk-literal-123" } });
    expect(stdio.secrets).toEqual(expect.arrayContaining(["ghp_secretvalue", "sk-literal-123"]));
    const http = resolveServer("api", { type: "http", url: "https://h/${PATH_PART:-mcp}", headers: { Authorization: "Bearer ${TOK}" } }, { TOK: "tok-abcdef" });
    expect(http).toMatchObject({ type: "http", url: "https://h/mcp", headers: { Authorization: "Bearer tok-abcdef" } });
    // The token alone is scrubbed too, not the scheme word.
    expect(http.secrets).toEqual(expect.arrayContaining(["Bearer tok-abcdef", "tok-abcdef"]));
    expect(http.secrets).not.toContain("Bearer");
  });

  it("scrubs what a ${VAR} expanded to anywhere in the entry: command, args, url, not only env and headers", () => {
    const env = { GH: "ghp_from_args_123", BIN: "/opt/tools/secret-bin", KEY: "key-in-query-456", HOME: "/home/someone", TMPDIR: "/tmp/run-1234" };
    const stdio = resolveServer("gh", { command: "${BIN}", args: ["--token=${GH}", "${HOME}/data", "--tmp", "${TMPDIR}", "--literal-flag-value"] }, env);
    expect(stdio.args).toEqual(["--token=ghp_from_args_123", "/home/someone/data", "--tmp", "/tmp/run-1234", "--literal-flag-value"]);
    expect(stdio.secrets).toEqual(expect.arrayContaining(["ghp_from_args_123", "/opt/tools/secret-bin"]));
    // Well-known non-secret variables are not scrubbed: the home folder stays readable everywhere.
    expect(stdio.secrets).not.toContain("/home/someone");
    expect(stdio.secrets).not.toContain("/tmp/run-1234");
    // A literal argument is shown as written by the API anyway: it is not a secret.
    expect(stdio.secrets).not.toContain("--literal-flag-value");
    expect(scrub(`argv: ["--token=${env.GH}", "${env.HOME}/data"]`, stdio.secrets)).toBe('argv: ["--token=[redacted]", "/home/someone/data"]');

    const http = resolveServer("api", { type: "http", url: "https://h.example/mcp?key=${KEY}&home=${HOME}" }, env);
    expect(http.url).toBe("https://h.example/mcp?key=key-in-query-456&home=/home/someone");
    expect(http.secrets).toEqual(["key-in-query-456"]);
    // A default used in place of an unset variable is what it expanded to: a secret too.
    expect(resolveServer("d", { command: "x", args: ["--token=${UNSET_TOKEN:-default-token-789}"] }, {}).secrets).toEqual(["default-token-789"]);
    // Short expansions would blank ordinary text: not scrubbed.
    expect(resolveServer("s", { command: "x", args: ["--port=${PORT}"] }, { PORT: "8080" }).secrets).toEqual([]);
  });

  it("treats every env and header value as a secret, but one made only of non-secret references", () => {
    const r = resolveServer("e", { command: "x", env: { HOME: "${HOME}", P: "${PATH}", DATA: "${HOME}/data", T: "${TOKEN}" } }, { HOME: "/home/someone", PATH: "/usr/bin:/bin", TOKEN: "tok-in-env-321" });
    expect(r.secrets).toEqual(expect.arrayContaining(["/home/someone/data", "tok-in-env-321"]));
    expect(r.secrets).not.toContain("/home/someone");
    expect(r.secrets).not.toContain("/usr/bin:/bin");
  });

  it("names the non-secret variables, whole and in any case", () => {
    for (const n of ["HOME", "PWD", "USER", "PATH", "TMPDIR", "LANG", "LC_ALL", "XDG_CONFIG_HOME", "Path", "USERPROFILE"]) expect(isNonSecretVariable(n)).toBe(true);
    for (const n of ["GITHUB_TOKEN", "HOME_TOKEN", "MY_PATH", "PATH_SECRET", "API_KEY", "LC_"]) expect(isNonSecretVariable(n)).toBe(false);
  });

  it("throws naming the unset variables, never a value", () => {
    expect(() => resolveServer("gh", { command: "x", env: { A: "${NOPE}", B: "secret-value" } }, {})).toThrow(MissingVariableError);
    expect(() => resolveServer("gh", { command: "x", env: { A: "${NOPE}", B: "secret-value" } }, {})).toThrow(/\$\{NOPE\} is not set/);
  });
});

describe("scrub", () => {
  it("replaces every occurrence of every secret", () => {
    expect(scrub("a sk-1234567 b sk-1234567", ["sk-1234567"])).toBe("a [redacted] b [redacted]");
  });
});

describe("masking", () => {
  it("shows only pure ${VAR} references (optionally after an auth scheme); masks literals and defaults", () => {
    expect(isShowable("${GITHUB_TOKEN}")).toBe(true);
    expect(isShowable("Bearer ${TOKEN}")).toBe(true);
    expect(isShowable("${A}${B}")).toBe(true);
    expect(isShowable("sk-live-123")).toBe(false);
    expect(isShowable("${TOKEN:-sk-live-default}")).toBe(false);
    expect(isShowable("prefix-${TOKEN}")).toBe(false);
    expect(isShowable("Bearer sk-live")).toBe(false);
    expect(isShowable("")).toBe(false);
  });

  it("masks env and header values in the API view, never the literal", () => {
    const v = maskServer("gh", { command: "npx", args: ["-y"], env: { A: "${A}", B: "sk-secret" } });
    expect(v).toEqual({ name: "gh", type: "stdio", command: "npx", args: ["-y"], env: { A: "${A}", B: MASK } });
    expect(JSON.stringify(maskServer("h", { type: "http", url: "http://x", headers: { Authorization: "Bearer sk-secret", X: "${X}" } }))).not.toContain("sk-secret");
  });

  it("keeps the stored value for a masked one, refuses a masked value with nothing stored", () => {
    const stored = { command: "npx", env: { B: "sk-secret", C: "old" } };
    expect(mergeMasked("gh", { command: "npx", env: { B: MASK, C: "new" } }, stored)).toEqual({ command: "npx", env: { B: "sk-secret", C: "new" } });
    expect(() => mergeMasked("gh", { command: "npx", env: { D: MASK } }, stored)).toThrow(MaskedValueError);
    // A stdio entry's env is not kept for an http entry's headers.
    expect(() => mergeMasked("gh", { type: "http", url: "http://x", headers: { B: MASK } }, stored)).toThrow(MaskedValueError);
    expect(mergeMasked("h", { type: "http", url: "http://x", headers: { A: MASK } }, { type: "http", url: "http://x", headers: { A: "Bearer t" } })).toEqual({ type: "http", url: "http://x", headers: { A: "Bearer t" } });
  });

  it("drops the stored secrets when the destination changes: a masked value is refused naming its key", () => {
    const http = { type: "http" as const, url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer sk-stored", "X-Team": "t" } };
    const refused = (next: Parameters<typeof mergeMasked>[1], stored: Parameters<typeof mergeMasked>[2] = http) => {
      try {
        mergeMasked("remote", next, stored);
      } catch (error) {
        return error as MaskedValueError;
      }
      throw new Error("not refused");
    };
    // Another host, port, scheme, path or query: refused, the message names the key and why.
    for (const url of ["https://evil.example/mcp", "https://mcp.example.com:8443/mcp", "http://mcp.example.com/mcp", "https://mcp.example.com/other", "https://mcp.example.com/mcp?tenant=b"]) {
      const e = refused({ type: "http", url, headers: { Authorization: MASK, "X-Team": "t" } });
      expect(e).toBeInstanceOf(MaskedValueError);
      expect(e).toMatchObject({ key: "Authorization", reason: "destination_changed" });
      expect(e.message).toMatch(/Authorization is sent masked, but the url changed; type the value again: the destination changed/);
    }
    // The value typed again is taken; the old one is not kept anywhere.
    const typed = mergeMasked("remote", { type: "http", url: "https://evil.example/mcp", headers: { Authorization: "Bearer sk-new" } }, http);
    expect(JSON.stringify(typed)).not.toContain("sk-stored");
    // Spelling alone (case of scheme and host, the default port, a fragment) is the same destination.
    expect(mergeMasked("remote", { type: "http", url: "HTTPS://MCP.example.com:443/mcp#x", headers: { Authorization: MASK } }, http).headers).toEqual({ Authorization: "Bearer sk-stored" });
    // A stdio entry: a new command or new args drop the stored env; other env changes do not.
    const stdio = { command: "npx", args: ["-y", "server-github"], env: { TOKEN: "ghp_stored" } };
    expect(refused({ command: "node", args: ["-y", "server-github"], env: { TOKEN: MASK } }, stdio)).toMatchObject({ key: "TOKEN", reason: "destination_changed", message: expect.stringMatching(/the command changed/) });
    expect(refused({ command: "npx", args: ["-y", "server-evil"], env: { TOKEN: MASK } }, stdio)).toMatchObject({ key: "TOKEN", reason: "destination_changed", message: expect.stringMatching(/the args changed/) });
    expect(refused({ command: "npx", env: { TOKEN: MASK } }, stdio).reason).toBe("destination_changed");
    expect(mergeMasked("gh", { command: "npx", args: ["-y", "server-github"], env: { TOKEN: MASK, DEBUG: "1" } }, stdio)).toEqual({ command: "npx", args: ["-y", "server-github"], env: { TOKEN: "ghp_stored", DEBUG: "1" } });
    // A change of kind is a change of destination.
    expect(refused({ type: "http", url: "https://x/mcp", headers: { TOKEN: MASK } }, stdio).reason).toBe("destination_changed");
    // Nothing stored for the key (same destination): the older message.
    expect(refused({ ...http, headers: { New: MASK } }).reason).toBe("nothing_stored");
  });

  it("compares destinations as written: a reference compares as the reference", () => {
    expect(destinationChange({ type: "http", url: "${BASE}/mcp" }, { type: "http", url: "${BASE}/mcp" })).toBeNull();
    expect(destinationChange({ type: "http", url: "${OTHER}/mcp" }, { type: "http", url: "${BASE}/mcp" })).toBe("url");
    expect(destinationChange({ command: "npx", args: ["${DIR}"] }, { command: "npx", args: ["${DIR}"] })).toBeNull();
    expect(destinationChange({ command: "npx" }, { command: "npx", args: [] })).toBeNull();
  });
});

describe("limits and back-off", () => {
  it("reads the limits from the environment, defaults otherwise", () => {
    expect(mcpLimitsFromEnv({})).toEqual({ idleMs: 600_000, callTimeoutMs: 60_000, startTimeoutMs: 30_000, backoffMs: 1000 });
    expect(mcpLimitsFromEnv({ ASTRION_MCP_IDLE_MS: "2000", ASTRION_MCP_CALL_TIMEOUT_MS: "abc" })).toMatchObject({ idleMs: 2000, callTimeoutMs: 60_000 });
  });

  it("restarts at once after one crash, then backs off doubling up to a minute", () => {
    expect([0, 1, 2, 3, 4].map((n) => restartDelay(n, 1000))).toEqual([0, 0, 1000, 2000, 4000]);
    expect(restartDelay(50, 1000)).toBe(60_000);
  });
});

describe("McpFileSchema", () => {
  it("reads Claude Code's .mcp.json shapes", () => {
    const file = McpFileSchema.parse({
      mcpServers: {
        github: { command: "npx", args: ["-y", "x"], env: { T: "${T}" } },
        typed: { type: "stdio", command: "node" },
        remote: { type: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer ${K}" } },
      },
      other: 1,
    });
    expect(Object.keys(file.mcpServers)).toEqual(["github", "typed", "remote"]);
    expect((file as Record<string, unknown>).other).toBe(1);
    expect(McpFileSchema.parse({})).toEqual({ mcpServers: {} });
  });

  it("refuses broken entries with clear messages", () => {
    const issues = (v: unknown) => McpFileSchema.safeParse(v).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`) ?? [];
    expect(issues({ mcpServers: { a: { type: "sse", url: "http://x" } } }).join()).toMatch(/type "sse" is not supported/);
    expect(issues({ mcpServers: { a: { args: [] } } }).join()).toMatch(/mcpServers\.a\.command/);
    expect(issues({ mcpServers: { a: { type: "http", url: "ftp://x" } } }).join()).toMatch(/http:\/\/ or https:\/\//);
    expect(issues({ mcpServers: { "bad__name": { command: "x" } } }).join()).toMatch(/server name "bad__name"/);
    expect(issues({ mcpServers: { "a b": { command: "x" } } }).join()).toMatch(/server name/);
    expect(issues({ mcpServers: [] }).length).toBeGreaterThan(0);
  });
});
