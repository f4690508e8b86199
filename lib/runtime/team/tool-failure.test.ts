import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/contracts/errors";
import { faultSummary, isRefusal, toolFailureMessage } from "./tool-failure";

function sysError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}

describe("tool failures", () => {
  it("tell a model what went wrong without the server's paths", () => {
    const error = sysError("ENAMETOOLONG", "ENAMETOOLONG: name too long, lstat '/home/someone/secret-project/aaaa'");
    const text = toolFailureMessage("read_file", error);
    expect(text).toBe("read_file failed: a file or folder name in the path is too long.");
    expect(text).not.toContain("/home");
    expect(faultSummary(error)).toBe("ENAMETOOLONG");
  });

  it("name unknown errno codes and hide everything else", () => {
    expect(toolFailureMessage("write_file", sysError("EXDEV", "EXDEV: cross-device link '/a' -> '/b'"))).toBe("write_file failed: the operating system reported EXDEV.");
    expect(toolFailureMessage("list_files", new TypeError("Cannot read properties of undefined (reading 'x') at /srv/app.js"))).toBe(
      "list_files failed: an internal error on the server (it is in the server's log).",
    );
    expect(faultSummary(new TypeError("x"))).toBe("TypeError");
    expect(faultSummary("a string")).toBe("internal error");
    // An errno-looking code that is an own property of Object.prototype is not looked up there.
    expect(toolFailureMessage("x", sysError("ECONSTRUCTOR", "m"))).toBe("x failed: the operating system reported ECONSTRUCTOR.");
  });

  it("pass refusals through as they are", () => {
    const refusal = new ValidationError("path must be a string");
    expect(isRefusal(refusal)).toBe(true);
    expect(toolFailureMessage("read_file", refusal)).toBe("path must be a string");
    expect(isRefusal(new Error("x"))).toBe(false);
  });
});
