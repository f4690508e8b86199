import { describe, expect, it } from "vitest";
import { z } from "zod";
import { compileMappings } from "./mapping";
import { gatewayToolName, operationsFromSpec, parseGatewayToolName } from "./openapi";
import { MAX_REF_DEPTH, resolveRefs } from "./refs";
import { GatewayMappingsSchema } from "./schema";

const mappings = compileMappings(
  GatewayMappingsSchema.parse({
    fields: [
      { internal: "order_id", api: "orderNo" },
      { internal: "amount_yuan", api: "amt_cents" },
      { internal: "created_at", api: "created" },
    ],
    units: [{ field: "amount_yuan", factor: 100, unit: "yuan" }],
    times: [{ field: "created_at", api: "epoch_ms" }],
  }),
);

const spec = {
  openapi: "3.0.3",
  servers: [{ url: "https://{host}/v1", variables: { host: { default: "api.example.com" } } }],
  paths: {
    "/orders/{orderNo}": {
      parameters: [{ $ref: "#/components/parameters/OrderNo" }],
      get: { operationId: "getOrder", summary: "One order", parameters: [{ name: "X-Trace", in: "header", schema: { type: "string" } }, { name: "Authorization", in: "header", required: true, schema: { type: "string" } }] },
      delete: { summary: "Cancel" },
    },
    "/orders": {
      post: {
        operationId: "createOrder",
        requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/NewOrder" } } } },
      },
      get: { operationId: "listOrders", parameters: [{ name: "since", in: "query", schema: { type: "integer" } }, { name: "created", in: "query", schema: { type: "integer", format: "int64" } }] },
    },
    "/upload": { post: { operationId: "upload", requestBody: { required: true, content: { "multipart/form-data": { schema: { type: "object" } } } } } },
    "/tree": { put: { operationId: "putTree", requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/Node" } } } } } },
    "/remote": { get: { operationId: "remote", parameters: [{ $ref: "https://evil.example/param.json" }] } },
    "/cookie": { get: { operationId: "cookie", parameters: [{ name: "sid", in: "cookie", required: true }] } },
    "/bulk": { post: { operationId: "bulk", requestBody: { content: { "application/vnd.api+json": { schema: { type: "array", items: { $ref: "#/components/schemas/NewOrder" } } } } } } },
  },
  components: {
    parameters: { OrderNo: { name: "orderNo", in: "path", required: true, description: "The order number", schema: { type: "string" } } },
    schemas: {
      NewOrder: { type: "object", required: ["amt_cents"], properties: { amt_cents: { type: "integer", nullable: true, example: 100 }, created: { type: "integer" }, note: { type: "string" } } },
      Node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/components/schemas/Node" } } } },
    },
  },
};

describe("tool names", () => {
  it("are gw__<source>__<operation>, sanitized, at most 64 characters, and parse back", () => {
    expect(gatewayToolName("orders", "getOrder")).toBe("gw__orders__getOrder");
    expect(gatewayToolName("orders", "DELETE /orders/{orderNo}")).toBe("gw__orders__DELETE_orders_orderNo");
    expect(gatewayToolName("orders", "a__b..c")).toBe("gw__orders__a_b_c");
    const long = gatewayToolName("orders", "x".repeat(200));
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(long).not.toBe(gatewayToolName("orders", `${"x".repeat(199)}y`));
    expect(parseGatewayToolName("gw__orders__getOrder")).toEqual({ source: "orders", operation: "getOrder" });
    expect(parseGatewayToolName("mcp__orders__getOrder")).toBeNull();
    expect(parseGatewayToolName("gw__a__b__c")).toEqual({ source: "a", operation: "b__c" });
  });
});

describe("an OpenAPI 3 spec becomes tools", () => {
  const out = operationsFromSpec("orders", spec, mappings, { fixedHeaders: ["authorization"] });
  const byName = new Map(out.operations.map((o) => [o.toolName, o]));

  it("one tool per operation, named by operationId or method and path, with its effect", () => {
    expect([...byName.keys()].sort()).toEqual(["gw__orders__DELETE_orders_orderNo", "gw__orders__bulk", "gw__orders__createOrder", "gw__orders__getOrder", "gw__orders__listOrders", "gw__orders__putTree"]);
    expect(byName.get("gw__orders__getOrder")!.effect).toBe("read");
    expect(byName.get("gw__orders__listOrders")!.effect).toBe("read");
    expect(byName.get("gw__orders__createOrder")!.effect).toBe("write");
    expect(byName.get("gw__orders__DELETE_orders_orderNo")!.effect).toBe("write");
    expect(out.serverUrl).toBe("https://api.example.com/v1");
  });

  it("parameters (a path-level $ref included) and the body, in the internal dialect; headers the source sets are not the model's", () => {
    const get = byName.get("gw__orders__getOrder")!;
    // The description names the path with the internal parameter names too.
    expect(get.description).toBe("One order (GET /orders/{order_id} on orders; reads data through the protocol gateway)");
    expect(get.inputSchema).toEqual({
      type: "object",
      properties: { order_id: { type: "string", description: "The order number" }, "X-Trace": { type: "string" } },
      required: ["order_id"],
      additionalProperties: false,
    });
    const list = byName.get("gw__orders__listOrders")!.inputSchema as { properties: Record<string, unknown> };
    expect(list.properties.created_at).toMatchObject({ type: "string", format: "date-time" });
    const create = byName.get("gw__orders__createOrder")!;
    expect(create.body).toEqual({ mode: "merge", required: true, contentType: "application/json" });
    expect(create.inputSchema).toEqual({
      type: "object",
      properties: {
        amount_yuan: { type: "number", description: "in yuan" },
        created_at: { type: "string", format: "date-time", description: "ISO 8601 date-time with a zone; the API uses epoch_ms" },
        note: { type: "string" },
      },
      required: ["amount_yuan"],
      additionalProperties: false,
    });
    // A non-object body is the `body` argument; its elements are mapped too.
    const bulk = byName.get("gw__orders__bulk")!;
    expect(bulk.body?.mode).toBe("wrap");
    expect((bulk.inputSchema as { properties: { body: { items: { properties: Record<string, unknown> } } } }).properties.body.items.properties).toHaveProperty("amount_yuan");
  });

  it("the model's JSON Schema is one zod can enforce", () => {
    const args = z.fromJSONSchema(byName.get("gw__orders__createOrder")!.inputSchema as Parameters<typeof z.fromJSONSchema>[0]);
    expect(args.safeParse({ amount_yuan: 12.5, note: "x" }).success).toBe(true);
    expect(args.safeParse({ note: "x" }).success).toBe(false);
    expect(args.safeParse({ amount_yuan: 1, amt_cents: 100 }).success).toBe(false);
  });

  it("skips with a warning what it cannot express, and bounds recursion", () => {
    expect(out.warnings.join("\n")).toMatch(/skipped POST \/upload: its request body is not JSON \(multipart\/form-data\)/);
    expect(out.warnings.join("\n")).toMatch(/skipped GET \/remote: \$ref "https:\/\/evil.example\/param.json" is not a local #\/components reference/);
    expect(out.warnings.join("\n")).toMatch(/skipped GET \/cookie: needs cookie parameter sid/);
    expect(out.warnings.join("\n")).toMatch(/#\/components\/schemas\/Node is recursive/);
    const tree = JSON.stringify(byName.get("gw__orders__putTree")!.inputSchema);
    expect(tree).toContain("recursive schema, not expanded");
  });

  it("keeps only the operations selected, and says which are not in the spec", () => {
    const some = operationsFromSpec("orders", spec, mappings, { select: ["getOrder", "DELETE /orders/{orderNo}", "nope"] });
    expect(some.operations.map((o) => o.toolName).sort()).toEqual(["gw__orders__DELETE_orders_orderNo", "gw__orders__getOrder"]);
    expect(some.warnings).toContain('operation "nope" is not in the spec');
  });

  it("refuses what is not OpenAPI 3.0/3.1", () => {
    expect(() => operationsFromSpec("s", { swagger: "2.0", paths: {} }, mappings)).toThrow(/OpenAPI 3.0 or 3.1 only/);
    expect(() => operationsFromSpec("s", { openapi: "3.1.0" }, mappings)).toThrow(/no paths/);
    expect(() => operationsFromSpec("s", "text", mappings)).toThrow(/not an object/);
    expect(operationsFromSpec("s", { openapi: "3.1.0", paths: {} }, mappings).operations).toEqual([]);
  });
});

describe("$ref resolution", () => {
  it("resolves JSON pointers with escapes, keeps 3.1 sibling keywords, and bounds depth", () => {
    const root = { components: { schemas: { "a/b": { type: "string" }, L0: { $ref: "#/components/schemas/L1" } } } };
    const warnings: string[] = [];
    expect(resolveRefs({ $ref: "#/components/schemas/a~1b", description: "d" }, root, warnings)).toEqual({ type: "string", description: "d" });
    expect(() => resolveRefs({ $ref: "#/components/schemas/missing" }, root, warnings)).toThrow(/points at nothing/);
    expect(() => resolveRefs({ $ref: "#/paths/x" }, root, warnings)).toThrow(/not a local #\/components reference/);
    // A chain longer than the bound is cut, not followed forever.
    const chain: Record<string, unknown> = {};
    for (let i = 0; i < MAX_REF_DEPTH + 5; i++) chain[`L${i}`] = { type: "object", properties: { next: { $ref: `#/components/schemas/L${i + 1}` } } };
    chain[`L${MAX_REF_DEPTH + 5}`] = { type: "string" };
    const deep = JSON.stringify(resolveRefs({ $ref: "#/components/schemas/L0" }, { components: { schemas: chain } }, warnings));
    expect(deep).toContain("nested too deep");
  });

  it("refuses a spec that expands exponentially (a billion-laughs of $refs)", () => {
    const schemas: Record<string, unknown> = { S0: { type: "string" } };
    for (let i = 1; i <= 30; i++) schemas[`S${i}`] = { type: "object", properties: { a: { $ref: `#/components/schemas/S${i - 1}` }, b: { $ref: `#/components/schemas/S${i - 1}` } } };
    expect(() => resolveRefs({ $ref: "#/components/schemas/S30" }, { components: { schemas } }, [])).toThrow(/expands to more than/);
  });
});
