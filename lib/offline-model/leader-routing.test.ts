/**
 * The offline leader with a large imported role library (issue 9): it reads derived tags from
 * the catalog and orders roles the way the runtime's intent routing does.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deriveCapabilities } from "@/lib/governance";
import { parseRoleFile } from "@/lib/roles";
import { leaderTools, type RoleChoice } from "@/lib/team-tools";
import { decideOffline } from "./index";
import { matchRoles, parseCatalog, routingOrder } from "./leader-plan";

const CORPUS = process.env.ASTRION_ROLE_CORPUS ?? "/work/shared/corpus/roles";
const files = existsSync(CORPUS) ? readdirSync(CORPUS).filter((f) => f.endsWith(".md") && f !== "SOURCE.md").sort() : [];

function corpusChoices(): RoleChoice[] {
  const out: RoleChoice[] = [];
  for (const file of files) {
    const role = parseRoleFile(file, readFileSync(path.join(CORPUS, file)));
    if (role.kind !== "role") continue;
    const { name, description } = role.fields;
    out.push({ id: role.id, name, description, capabilities: deriveCapabilities(name, description), capabilities_source: "derived" });
  }
  return out;
}

describe("the catalog's derived capabilities", () => {
  it("are labelled in the leader's catalog and read back by the offline leader", () => {
    const [spec] = leaderTools([
      { id: "k8s", name: "K8s", description: "Runs clusters", capabilities: ["kubernetes"], capabilities_source: "derived" },
      { id: "py", name: "Py", description: "Python (typed)", capabilities: ["python"] },
    ]);
    expect(spec!.function.description).toContain("- k8s: K8s — Runs clusters (derived capabilities: kubernetes)");
    expect(spec!.function.description).toContain("- py: Py — Python (typed) (capabilities: python)");
    expect(parseCatalog(spec)).toEqual([
      { id: "k8s", name: "K8s", description: "Runs clusters", capabilities: ["kubernetes"], derived: true },
      { id: "py", name: "Py", description: "Python (typed)", capabilities: ["python"] },
    ]);
  });
});

describe.skipIf(files.length === 0)("the offline leader over the imported role corpus", () => {
  const choices = corpusChoices();
  const catalog = parseCatalog(leaderTools(choices)[0]);

  it("reads every role of the catalog with its derived tags", () => {
    expect(catalog.length).toBe(choices.length);
    expect(catalog.every((r) => r.derived)).toBe(true);
  });

  it.each([
    ["audit the Kubernetes manifests for security issues", /kubernetes|security/],
    ["speed up the slow SQL queries in the reporting service", /database|sql|performance/],
    ["write unit tests for the payment module", /test/],
  ])("%s: the team's first role fits, as routing ranks it", (goal, fits) => {
    const team = matchRoles(goal, catalog);
    expect(team[0]?.role.id).toMatch(fits);
    const order = routingOrder(goal, catalog);
    expect(order.get(team[0]!.role.id)).toBeLessThan(3);
  });

  it("creates that role when given the goal", () => {
    const d = decideOffline({ messages: [{ role: "user", content: "audit the Kubernetes manifests for security issues" }], tools: leaderTools(choices), thinking: "off" });
    expect(String(d.toolCalls[0]?.args.role_id)).toMatch(/kubernetes|security/);
  });
});
