import { describe, expect, it } from "vitest";
import { isIdFileName, ROLE_FILE, roleIdFromText, stemOf, suggestRoleId } from "./file-names";
import { ROLE_ID_PATTERN } from "./schema";

describe("role file names", () => {
  it("lists any .md name in any case, but no hidden file", () => {
    for (const name of ["a.md", "Power Shell 5.1.md", "powershell-5.1-expert.md", "Reviewer.MD", "中文.md"]) expect(ROLE_FILE.test(name)).toBe(true);
    for (const name of [".hidden.md", "a.txt", "a.md.bak"]) expect(ROLE_FILE.test(name)).toBe(false);
  });

  it("tells a file an id addresses from one it does not", () => {
    expect(isIdFileName("code-reviewer.md")).toBe(true);
    expect(isIdFileName("Code_Reviewer2.md")).toBe(true);
    for (const name of ["powershell-5.1-expert.md", "Power Shell.md", "Reviewer.MD", "-a.md", "中文.md", `${"a".repeat(101)}.md`]) {
      expect(isIdFileName(name)).toBe(false);
    }
    expect(stemOf("Reviewer.MD")).toBe("Reviewer");
  });

  it("suggests a valid, free id", () => {
    expect(suggestRoleId("Power Shell 5.1.md", [])).toBe("power-shell-5-1");
    expect(suggestRoleId("powershell-5.1-expert.md", [])).toBe("powershell-5-1-expert");
    expect(suggestRoleId("Reviewer.MD", ["reviewer"])).toBe("reviewer-2");
    expect(suggestRoleId("Reviewer.MD", ["Reviewer", "reviewer-2"])).toBe("reviewer-3");
    expect(suggestRoleId("中文.md", [])).toBe("role");
    expect(suggestRoleId("Crème Brûlée.md", [])).toBe("creme-brulee");
    for (const name of ["../../x.md", "a\u0000b.md", `${"é ".repeat(200)}.md`, "---.md"]) {
      expect(suggestRoleId(name, [])).toMatch(ROLE_ID_PATTERN);
    }
    expect(roleIdFromText("x".repeat(300)).length).toBeLessThanOrEqual(90);
  });
});
