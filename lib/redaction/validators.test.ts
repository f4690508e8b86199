import { describe, expect, it } from "vitest";
import { hasCardIssuerPrefix, idCardCheckChar, isBankCard, isChineseIdCard, isIPv4, isIPv6, isPlausibleDate, luhnValid } from "./validators";

describe("validators", () => {
  it("Luhn", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("79927398713")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(luhnValid("")).toBe(false);
    expect(luhnValid("41a1")).toBe(false);
  });

  it("card issuer prefixes and lengths", () => {
    expect(hasCardIssuerPrefix("4111111111111111")).toBe(true);
    expect(hasCardIssuerPrefix("411111111111111")).toBe(false); // Visa has no 15-digit numbers
    expect(hasCardIssuerPrefix("378282246310005")).toBe(true);
    expect(hasCardIssuerPrefix("1752251700005")).toBe(false);
    expect(isBankCard("6222021234567890128")).toBe(true);
  });

  it("resident ID: MOD 11-2, province, birth date", () => {
    expect(idCardCheckChar("11010519491231002")).toBe("X");
    expect(isChineseIdCard("11010519491231002X")).toBe(true);
    expect(isChineseIdCard("11010519491231002x")).toBe(true);
    expect(isChineseIdCard("110105194912310021")).toBe(false);
    expect(isChineseIdCard("110105203001010015", 2026)).toBe(false);
    expect(isPlausibleDate(2024, 2, 29, 2026)).toBe(true);
    expect(isPlausibleDate(2023, 2, 29, 2026)).toBe(false);
    expect(isPlausibleDate(1899, 1, 1, 2026)).toBe(false);
  });

  it("IPv4 and IPv6", () => {
    expect(isIPv4("0.0.0.0")).toBe(true);
    expect(isIPv4("256.0.0.1")).toBe(false);
    expect(isIPv4("01.2.3.4")).toBe(false);
    for (const ok of ["::", "::1", "1::", "2001:db8::1", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4", "1::2:3:4:5:6:7"]) {
      expect(isIPv6(ok), ok).toBe(true);
    }
    for (const bad of ["1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1::2", "12345::1", "::1.2.3", "g::1", "1:2:3:4:5:6:7:1.2.3.4", "1::2:3:4:5:6:7:8"]) {
      expect(isIPv6(bad), bad).toBe(false);
    }
  });
});
