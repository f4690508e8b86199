import { describe, expect, it } from "vitest";
import { parseCommandLine } from "./parse";

describe("parseCommandLine", () => {
  it("reads a plain line as one argv that needs no shell", () => {
    expect(parseCommandLine("npm test")).toEqual({ parts: [["npm", "test"]], needsShell: false, opaque: false });
    expect(parseCommandLine("  git   log  --oneline ")).toEqual({ parts: [["git", "log", "--oneline"]], needsShell: false, opaque: false });
  });

  it("honours quotes and backslashes, and keeps quoted operators as words", () => {
    expect(parseCommandLine(`echo 'a; b' "c && d" e\\ f`).parts).toEqual([["echo", "a; b", "c && d", "e f"]]);
    expect(parseCommandLine(`echo 'a; b'`).needsShell).toBe(false);
    expect(parseCommandLine(`printf "%s\\n" "x\\"y"`).parts).toEqual([["printf", "%s\\n", 'x"y']]);
    expect(parseCommandLine(`echo "$HOME"`)).toMatchObject({ needsShell: true, opaque: true });
    expect(parseCommandLine(`echo '$HOME'`)).toMatchObject({ needsShell: false, opaque: false, parts: [["echo", "$HOME"]] });
  });

  it("splits at control operators, which need a shell", () => {
    for (const line of ["npm test; rm -rf /", "npm test && rm -rf /", "npm test || rm -rf /", "npm test | rm -rf /", "npm test & rm -rf /", "npm test\nrm -rf /"]) {
      const p = parseCommandLine(line);
      expect(p.parts, line).toEqual([["npm", "test"], ["rm", "-rf", "/"]]);
      expect(p.needsShell, line).toBe(true);
      expect(p.opaque, line).toBe(false);
    }
  });

  it("marks every other shell feature as needing a shell and opaque", () => {
    for (const line of ["echo $(id)", "echo `id`", "echo $HOME", "ls > out", "cat < x", "ls *.ts", "ls ?", "ls [ab]", "echo {a,b}", "(cd .. && ls)", "A=1 npm test", "cd ~", "ls # c", "! true", "a |& b", "case x in a) ;; esac"]) {
      const p = parseCommandLine(line);
      expect(p.needsShell, line).toBe(true);
      expect(p.opaque, line).toBe(true);
    }
    // A quoted `=` or `*` is a plain word.
    expect(parseCommandLine(`"A=1" x`)).toMatchObject({ opaque: false, needsShell: false });
    expect(parseCommandLine(`grep -r 'a*b' .`)).toMatchObject({ opaque: false, needsShell: false, parts: [["grep", "-r", "a*b", "."]] });
    expect(parseCommandLine("npm run lint --fix=true")).toMatchObject({ opaque: false, needsShell: false });
  });

  it("refuses what cannot be read", () => {
    expect(parseCommandLine("echo 'x").error).toMatch(/unterminated single quote/);
    expect(parseCommandLine('echo "x').error).toMatch(/unterminated double quote/);
    expect(parseCommandLine("echo \\").error).toMatch(/trailing backslash/);
    expect(parseCommandLine("   ").error).toMatch(/no command/);
    expect(parseCommandLine(" ; ").error).toMatch(/no command/);
  });
});
