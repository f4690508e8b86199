import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkBaseUrl, loadGateway } from "./config";
import { gatewayGrant, grantsTool } from "./grants";
import { findGatewayTool, GatewayLastErrors, gatewayProblems, gatewayReport, gatewayToolSpecs } from "./service";

const YAML_SPEC = `openapi: 3.0.3
servers:
  - url: http://127.0.0.1:1/v1
paths:
  /orders/{orderNo}:
    get:
      operationId: getOrder
      parameters:
        - { name: orderNo, in: path, required: true, schema: { type: string } }
    delete:
      operationId: cancelOrder
      parameters:
        - { name: orderNo, in: path, required: true, schema: { type: string } }
`;

function home(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "astrion-gw-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  return root;
}

describe("gateway.json", () => {
  it("is optional: no file, no source, no problem", async () => {
    const root = home({});
    expect(await gatewayReport(root, new GatewayLastErrors())).toEqual({ present: false, error: null, sources: [] });
    expect(await gatewayProblems(root)).toEqual([]);
  });

  it("loads a YAML spec file relative to the data folder, with mappings, and reports never a header value", async () => {
    const root = home({
      "specs/orders.yaml": YAML_SPEC,
      "gateway.json": JSON.stringify({ sources: { orders: { type: "openapi", spec: "specs/orders.yaml", headers: { Authorization: "Bearer ${ORDERS_TOKEN}" }, mappings: { fields: [{ internal: "order_id", api: "orderNo" }] } } } }),
    });
    const report = await gatewayReport(root, new GatewayLastErrors());
    expect(report.error).toBeNull();
    expect(report.sources[0]).toMatchObject({ name: "orders", base_url: "http://127.0.0.1:1/v1", header_names: ["Authorization"], error: null });
    expect(report.sources[0]!.tools.map((t) => [t.name, t.effect])).toEqual([
      ["gw__orders__getOrder", "read"],
      ["gw__orders__cancelOrder", "write"],
    ]);
    expect(JSON.stringify(report)).not.toContain("ORDERS_TOKEN");
    expect((await findGatewayTool(root, "gw__orders__cancelOrder"))?.op.effect).toBe("write");
    expect(await findGatewayTool(root, "gw__orders__nope")).toBeNull();
    const specs = await gatewayToolSpecs(root, gatewayGrant({ tools: ["gw__orders__getOrder", "Read"] }));
    expect(specs.map((s) => s.function.name)).toEqual(["gw__orders__getOrder"]);
    expect(specs[0]!.function.parameters).toMatchObject({ properties: { order_id: { type: "string" } }, required: ["order_id"] });
    expect((await gatewayToolSpecs(root, gatewayGrant({ gateway: ["orders"] }))).length).toBe(2);
    expect(await gatewayToolSpecs(root, gatewayGrant({}))).toEqual([]);
  });

  it("reads a JSON spec file too, and picks up an edit of the spec file", async () => {
    const spec = (op: string) => JSON.stringify({ openapi: "3.1.0", servers: [{ url: "http://127.0.0.1:1" }], paths: { "/x": { get: { operationId: op } } } });
    const root = home({ "spec.json": spec("first"), "gateway.json": JSON.stringify({ sources: { s: { type: "openapi", spec: "spec.json" } } }) });
    expect((await gatewayReport(root, new GatewayLastErrors())).sources[0]!.tools.map((t) => t.name)).toEqual(["gw__s__first"]);
    writeFileSync(path.join(root, "spec.json"), `${spec("second")}\n`);
    expect((await gatewayReport(root, new GatewayLastErrors())).sources[0]!.tools.map((t) => t.name)).toEqual(["gw__s__second"]);
  });

  it("keeps each data folder's gateway.json apart, in one process", async () => {
    const spec = { openapi: "3.1.0", paths: { "/x": { get: { operationId: "x" } } } };
    const a = home({ "gateway.json": JSON.stringify({ sources: { a: { type: "openapi", base_url: "http://127.0.0.1:1", spec } } }) });
    const b = home({ "gateway.json": JSON.stringify({ sources: { b: { type: "openapi", base_url: "http://127.0.0.1:1", spec } } }) });
    expect([...(await loadGateway(a)).sources.keys()]).toEqual(["a"]);
    expect([...(await loadGateway(b)).sources.keys()]).toEqual(["b"]);
    expect([...(await loadGateway(a)).sources.keys()]).toEqual(["a"]);
  });

  it("picks up an edit at the next use", async () => {
    const root = home({ "gateway.json": JSON.stringify({ sources: {} }) });
    expect((await loadGateway(root)).sources.size).toBe(0);
    writeFileSync(path.join(root, "gateway.json"), JSON.stringify({ sources: { s: { type: "openapi", base_url: "http://127.0.0.1:1", spec: { openapi: "3.1.0", paths: { "/x": { get: { operationId: "x" } } } } } } }));
    expect([...(await loadGateway(root)).sources.keys()]).toEqual(["s"]);
  });

  it("a broken file is a clear error, in the report and in the health problems", async () => {
    for (const [text, message] of [
      ["{ not json", /gateway.json is not valid JSON/],
      [JSON.stringify({ sources: { "bad__name": { type: "openapi", spec: {} } } }), /gateway.json is invalid: .*source name/],
      [JSON.stringify({ sources: { s: { type: "graphql", spec: {} } } }), /gateway.json is invalid/],
      [JSON.stringify({ servers: [] }), /gateway.json is invalid/],
    ] as const) {
      const root = home({ "gateway.json": text });
      const report = await gatewayReport(root, new GatewayLastErrors());
      expect(report.error).toMatch(message);
      expect(report.sources).toEqual([]);
      expect((await gatewayProblems(root))[0]).toMatchObject({ file: "gateway.json", message: expect.stringMatching(message) });
    }
  });

  it("one broken source does not take the others down", async () => {
    const ok = { type: "openapi", base_url: "http://127.0.0.1:1", spec: { openapi: "3.1.0", paths: { "/x": { get: { operationId: "x" } } } } };
    const outside = mkdtempSync(path.join(os.tmpdir(), "astrion-outside-"));
    writeFileSync(path.join(outside, "spec.yaml"), YAML_SPEC);
    const root = home({
      "gateway.json": JSON.stringify({
        sources: {
          ok,
          file_scheme: { ...ok, base_url: "file:///etc" },
          missing: { type: "openapi", spec: "nope.yaml" },
          escape: { type: "openapi", spec: "../spec.yaml" },
          absolute: { type: "openapi", spec: path.join(outside, "spec.yaml") },
          linked: { type: "openapi", spec: "link.yaml" },
          swagger: { type: "openapi", base_url: "http://127.0.0.1:1", spec: { swagger: "2.0", paths: {} } },
          relative_server: { type: "openapi", spec: { openapi: "3.0.0", servers: [{ url: "/v1" }], paths: {} } },
          bad_pattern: { ...ok, mappings: { times: [{ field: "t", api: { pattern: "HH" } }] } },
          not_yaml: { type: "openapi", spec: "broken.yaml" },
        },
      }),
      "broken.yaml": "a: [unclosed",
    });
    symlinkSync(path.join(outside, "spec.yaml"), path.join(root, "link.yaml"));
    const report = await gatewayReport(root, new GatewayLastErrors());
    const errorOf = (name: string) => report.sources.find((s) => s.name === name)!.error;
    expect(errorOf("ok")).toBeNull();
    expect(report.sources.find((s) => s.name === "ok")!.tools).toHaveLength(1);
    expect(errorOf("file_scheme")).toMatch(/base_url must be http or https, not file/);
    expect(errorOf("missing")).toMatch(/spec file nope.yaml not found/);
    expect(errorOf("escape")).toMatch(/outside the data folder/);
    expect(errorOf("absolute")).toMatch(/relative to the data folder/);
    expect(errorOf("linked")).toMatch(/outside the data folder/);
    expect(errorOf("swagger")).toMatch(/OpenAPI 3.0 or 3.1 only/);
    expect(errorOf("relative_server")).toMatch(/not an absolute URL|no base_url/);
    expect(errorOf("bad_pattern")).toMatch(/needs YYYY, MM and DD/);
    expect(errorOf("not_yaml")).toMatch(/neither JSON nor YAML/);
    expect((await gatewayProblems(root)).length).toBe(9);
  });

  it("base URLs: http(s) only, no credentials", () => {
    expect(checkBaseUrl("https://api.example.com/v1")).toBe("https://api.example.com/v1");
    expect(() => checkBaseUrl("ftp://x")).toThrow(/http or https/);
    expect(() => checkBaseUrl("javascript:alert(1)")).toThrow(/http or https/);
    expect(() => checkBaseUrl("https://u:p@x.example")).toThrow(/user name or password/);
    expect(() => checkBaseUrl("/relative")).toThrow(/absolute URL/);
    expect(() => checkBaseUrl("https://x.example/v1?api_key=k")).toThrow(/query or a fragment/);
    expect(() => checkBaseUrl("https://x.example/v1#k")).toThrow(/query or a fragment/);
  });
});

describe("role grants", () => {
  it("gateway: grants a source's tools, tools: grants one by name, nothing else grants", () => {
    const bySource = gatewayGrant({ gateway: ["orders"] });
    expect(grantsTool(bySource, "gw__orders__anything")).toBe(true);
    expect(grantsTool(bySource, "gw__billing__x")).toBe(false);
    const byName = gatewayGrant({ tools: ["gw__billing__x", "Read", "mcp__orders__y"] });
    expect(grantsTool(byName, "gw__billing__x")).toBe(true);
    expect(grantsTool(byName, "gw__billing__y")).toBe(false);
    expect(grantsTool(byName, "gw__orders__y")).toBe(false);
    expect(grantsTool(gatewayGrant({}), "gw__orders__x")).toBe(false);
    expect(grantsTool(bySource, "read_file")).toBe(false);
  });
});
