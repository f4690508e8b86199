import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeVersionProblem, requiredMajor } from "./node-version.mjs";

const engines = (JSON.parse(readFileSync(path.join(__dirname, "..", "package.json"), "utf8")) as { engines: { node: string } }).engines.node;

describe("npm start's Node version check", () => {
  it("asks for Node 24, as package.json and .nvmrc say", () => {
    expect(requiredMajor(engines)).toBe(24);
    expect(readFileSync(path.join(__dirname, "..", ".nvmrc"), "utf8").trim()).toBe("24");
  });

  it("refuses an older Node in one line naming the version it needs", () => {
    const message = nodeVersionProblem("v20.19.2", ">=24");
    expect(message).toMatch(/^Astrion Team needs Node 24 or later \(package\.json engines\.node ">=24"\); this is Node v20\.19\.2 at /);
    expect(message).not.toContain("\n");
    expect(nodeVersionProblem("v23.11.0", ">=24")).not.toBeNull();
  });

  it("accepts Node 24 and later", () => {
    expect(nodeVersionProblem("v24.0.0", ">=24")).toBeNull();
    expect(nodeVersionProblem("v26.1.0", ">=24.0.0")).toBeNull();
    expect(nodeVersionProblem(process.version, engines)).toBeNull();
  });

  it("reads only a >=N range", () => {
    expect(() => requiredMajor("^24")).toThrow(/">=N" range/);
  });
});
