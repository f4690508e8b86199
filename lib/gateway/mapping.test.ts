import { describe, expect, it } from "vitest";
import { compileMappings, schemaToInternal, toApi, toInternal } from "./mapping";
import { GatewayMappingsSchema } from "./schema";

const m = compileMappings(
  GatewayMappingsSchema.parse({
    fields: [
      { internal: "order_id", api: "orderNo" },
      { internal: "amount_yuan", api: "amt_cents" },
      { internal: "created_at", api: "created" },
      { internal: "customer.name", api: "buyer.fullName" },
      { internal: "lines.unit_price", api: "items.price_cents" },
    ],
    units: [
      { field: "amount_yuan", factor: 100, unit: "yuan" },
      { field: "lines.unit_price", factor: 100 },
      { field: "duration_s", factor: 1000 },
      { field: "temp_c", factor: 1.8, offset: 32 },
    ],
    times: [
      { field: "created_at", api: { pattern: "YYYYMMDD[T]HHmmssZ", timezone: "+08:00" } },
      { field: "paid_at", api: "epoch_ms" },
    ],
  }),
);

const api = {
  orderNo: "A-1",
  amt_cents: 1234,
  created: "20260131T120000+0800",
  paid_at: 1769832000000,
  buyer: { fullName: "Li Lei", vip: true },
  items: [{ price_cents: 199, sku: "x" }, { price_cents: 1 }],
  duration_s: 1500,
  temp_c: 212,
  untouched: { orderNo: "nested, not renamed" },
};
const internal = {
  order_id: "A-1",
  amount_yuan: 12.34,
  created_at: "2026-01-31T04:00:00Z",
  paid_at: "2026-01-31T04:00:00Z",
  customer: { name: "Li Lei", vip: true },
  lines: [{ unit_price: 1.99, sku: "x" }, { unit_price: 0.01 }],
  duration_s: 1.5,
  temp_c: 100,
  untouched: { orderNo: "nested, not renamed" },
};

describe("responses: the API's dialect → the internal one", () => {
  it("renames fields (nested paths and array elements), converts units and times", () => {
    expect(toInternal(api, m)).toEqual(internal);
  });
  it("walks a top-level array element by element", () => {
    expect(toInternal([{ orderNo: "A" }, { orderNo: "B", amt_cents: 5 }], m)).toEqual([{ order_id: "A" }, { order_id: "B", amount_yuan: 0.05 }]);
  });
  it("leaves null alone and keeps __proto__ a plain key", () => {
    const out = toInternal(JSON.parse('{"amt_cents": null, "__proto__": {"polluted": 1}}'), m) as Record<string, unknown>;
    expect(out.amount_yuan).toBeNull();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("requests: the internal dialect → the API's", () => {
  it("is the exact inverse", () => {
    expect(toApi(internal, m)).toEqual(api);
  });
  it("round-trips both ways", () => {
    expect(toInternal(toApi(internal, m), m)).toEqual(internal);
    expect(toApi(toInternal(api, m), m)).toEqual(api);
  });
  it("removes binary noise from unit conversions (12.34 yuan is 1234 cents, not 1233.9999999999998)", () => {
    expect(toApi({ amount_yuan: 12.34 }, m)).toEqual({ amt_cents: 1234 });
    expect(toApi({ amount_yuan: 0.07 }, m)).toEqual({ amt_cents: 7 });
  });
});

describe("bad values are clear errors", () => {
  it("names the field when a time does not match its declared format", () => {
    expect(() => toInternal({ created: "2026-01-31 12:00" }, m)).toThrow(/created_at: "2026-01-31 12:00" from the API does not match the declared time format YYYYMMDD\[T\]HHmmssZ \(\+08:00\)/);
    expect(() => toApi({ created_at: "tomorrow" }, m)).toThrow(/created_at: "tomorrow" is not an ISO 8601 date-time/);
  });
  it("names the field when a unit value is not a number", () => {
    expect(() => toApi({ amount_yuan: "twelve" }, m)).toThrow(/amount_yuan: "twelve" \(internal\) is not a number/);
    expect(() => toInternal({ amt_cents: { x: 1 } }, m)).toThrow(/amount_yuan: .* from the API is not a number/);
  });
  it("refuses an answer where two API fields would become one internal field", () => {
    expect(() => toInternal({ orderNo: "A", order_id: "B" }, m)).toThrow(/orderNo and order_id would both become order_id|order_id and orderNo would both become order_id/);
  });
});

describe("declared mappings are checked", () => {
  const parse = (x: unknown) => compileMappings(GatewayMappingsSchema.parse(x));
  it("refuses contradictory or colliding renames, double declarations, and bad patterns or zones", () => {
    expect(() => parse({ fields: [{ internal: "a", api: "x" }, { internal: "b", api: "x" }] })).toThrow(/renamed to both/);
    expect(() => parse({ fields: [{ internal: "a", api: "x" }, { internal: "a", api: "y" }] })).toThrow(/renamed to both|collide/);
    expect(() => parse({ units: [{ field: "a", factor: 2 }, { field: "a", factor: 3 }] })).toThrow(/declared twice/);
    expect(() => parse({ units: [{ field: "a", factor: 2 }], times: [{ field: "a", api: "epoch_s" }] })).toThrow(/both a unit conversion and a time format/);
    expect(() => parse({ times: [{ field: "t", api: { pattern: "HHmm" } }] })).toThrow(/needs YYYY, MM and DD/);
    expect(() => parse({ times: [{ field: "t", api: { pattern: "YYYYMMDD", timezone: "Nowhere/City" } }] })).toThrow(/unknown timezone/);
    expect(GatewayMappingsSchema.safeParse({ fields: [{ internal: "a.b", api: "x" }] }).success).toBe(false);
    expect(GatewayMappingsSchema.safeParse({ units: [{ field: "a", factor: 0 }] }).success).toBe(false);
  });
});

describe("schemas in the internal dialect", () => {
  it("renames properties and required names, retypes unit and time fields", () => {
    const schema = {
      type: "object",
      required: ["orderNo", "amt_cents"],
      properties: {
        orderNo: { type: "string" },
        amt_cents: { type: "integer", minimum: 1, description: "Amount" },
        created: { type: "string", pattern: "^\\d{8}T" },
        buyer: { type: "object", properties: { fullName: { type: "string" } } },
        items: { type: "array", items: { type: "object", properties: { price_cents: { type: "integer" } } } },
      },
    };
    expect(schemaToInternal(schema, m)).toEqual({
      type: "object",
      required: ["order_id", "amount_yuan"],
      properties: {
        order_id: { type: "string" },
        amount_yuan: { type: "number", description: "Amount (in yuan)" },
        created_at: { type: "string", format: "date-time", description: "ISO 8601 date-time with a zone; the API uses YYYYMMDD[T]HHmmssZ (+08:00)" },
        customer: { type: "object", properties: { name: { type: "string" } } },
        lines: { type: "array", items: { type: "object", properties: { unit_price: { type: "number", description: "converted by the gateway" } } } },
      },
    });
  });
});
