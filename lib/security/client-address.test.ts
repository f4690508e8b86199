import { describe, expect, it } from "vitest";
import { CLIENT_ADDRESS_HEADER, clientAddressOf, normalizeAddress, UNKNOWN_CLIENT } from "./client-address";

const stamped = { ASTRION_STAMPS_CLIENT_ADDRESS: "1" };

describe("client address", () => {
  it("is the stamped socket address when this process stamps it", () => {
    expect(clientAddressOf(new Headers({ [CLIENT_ADDRESS_HEADER]: "10.1.2.3" }), stamped)).toBe("10.1.2.3");
    expect(clientAddressOf(new Headers({ [CLIENT_ADDRESS_HEADER]: "::ffff:127.0.0.1" }), stamped)).toBe("127.0.0.1");
  });

  it("never reads x-forwarded-for", () => {
    const headers = new Headers({ [CLIENT_ADDRESS_HEADER]: "127.0.0.1", "x-forwarded-for": "203.0.113.9", "x-real-ip": "203.0.113.10" });
    expect(clientAddressOf(headers, stamped)).toBe("127.0.0.1");
    expect(clientAddressOf(new Headers({ "x-forwarded-for": "203.0.113.9" }), stamped)).toBe(UNKNOWN_CLIENT);
  });

  it("does not believe the header in a process that does not stamp it", () => {
    expect(clientAddressOf(new Headers({ [CLIENT_ADDRESS_HEADER]: "10.1.2.3" }), {})).toBe(UNKNOWN_CLIENT);
  });

  it("normalizes IPv4-mapped IPv6 and case", () => {
    expect(normalizeAddress("::FFFF:10.0.0.1")).toBe("10.0.0.1");
    expect(normalizeAddress("FE80::1")).toBe("fe80::1");
  });
});
