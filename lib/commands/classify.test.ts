import { describe, expect, it } from "vitest";
import { commandKind, gitSubcommand, lineKind } from "./classify";
import { parseCommandLine } from "./parse";

const kind = (line: string) => lineKind(parseCommandLine(line).parts);

describe("commandKind", () => {
  it.each([
    ["npm test", "project_code"],
    ["npm run lint --fix", "project_code"],
    ["pnpm install", "project_code"],
    ["npx vitest", "project_code"],
    ["make", "project_code"],
    ["pytest -q", "project_code"],
    ["node script.js", "project_code"],
    ["cargo test", "project_code"],
    ["./run.sh", "project_code"],
    ["bin/check", "project_code"],
    ["/bin/ls", "project_code"],
    ["some-unknown-tool --flag", "project_code"],
    ["env", "project_code"],
    ["awk -f x.awk", "project_code"],
    ["find . -name '*.ts' -exec ./x.sh {} ;", "project_code"],
    ["sort --compress-program=./z a.txt", "project_code"],
    ["rg --pre ./p needle", "project_code"],
    ["git status", "git"],
    ["git -C sub log --oneline", "git"],
    ["ls -la", "read_only"],
    ["cat package.json", "read_only"],
    ["grep -rn TODO src", "read_only"],
    ["find . -name '*.ts'", "read_only"],
    ["rg needle", "read_only"],
    ["pwd", "read_only"],
  ] as const)("%s is %s", (line, expected) => {
    expect(commandKind(parseCommandLine(line).parts[0]!)).toBe(expected);
  });

  it("takes the strongest kind of a line's parts", () => {
    expect(kind("ls && cat a")).toBe("read_only");
    expect(kind("ls && git status")).toBe("git");
    expect(kind("git status; npm test")).toBe("project_code");
  });

  it("finds git's subcommand past its options", () => {
    expect(gitSubcommand(["git", "status"])).toBe("status");
    expect(gitSubcommand(["git", "-C", "dir", "-c", "a=b", "--no-pager", "log", "-1"])).toBe("log");
    expect(gitSubcommand(["git", "--version"])).toBeUndefined();
  });
});
