import { describe, expect, it } from "vitest";
import { checkTimezone, formatPattern, parseIso, parsePattern, timeToApi, timeToInternal, tokenizePattern } from "./time";

const NOON_SHANGHAI = Date.UTC(2026, 0, 31, 4, 0, 0); // 2026-01-31T12:00:00+08:00

describe("ISO 8601", () => {
  it("reads a date-time with Z or an offset, and refuses one without a zone or out of range", () => {
    expect(parseIso("2026-01-31T12:00:00+08:00")).toBe(NOON_SHANGHAI);
    expect(parseIso("2026-01-31T04:00:00Z")).toBe(NOON_SHANGHAI);
    expect(parseIso("2026-01-31T04:00:00.250Z")).toBe(NOON_SHANGHAI + 250);
    expect(parseIso("2026-01-31T12:00:00")).toBeNull();
    expect(parseIso("2026-02-30T12:00:00Z")).toBeNull();
    expect(parseIso("2026-01-31T25:00:00Z")).toBeNull();
    expect(parseIso("yesterday")).toBeNull();
  });
});

describe("patterns", () => {
  it("reads and writes a compact pattern with an offset (20260131T120000+0800)", () => {
    const f = { pattern: "YYYYMMDD[T]HHmmssZ", timezone: "+08:00" };
    expect(parsePattern("20260131T120000+0800", f.pattern, f.timezone)).toBe(NOON_SHANGHAI);
    expect(formatPattern(NOON_SHANGHAI, f.pattern, f.timezone)).toBe("20260131T120000+0800");
  });

  it("reads a pattern without a zone in the declared zone, IANA names included", () => {
    expect(parsePattern("2026/01/31 12:00:00", "YYYY/MM/DD HH:mm:ss", "Asia/Shanghai")).toBe(NOON_SHANGHAI);
    expect(formatPattern(NOON_SHANGHAI, "YYYY/MM/DD HH:mm:ss", "Asia/Shanghai")).toBe("2026/01/31 12:00:00");
    // Daylight saving: New York is UTC-4 in July and UTC-5 in January.
    expect(parsePattern("2026/07/01 08:00:00", "YYYY/MM/DD HH:mm:ss", "America/New_York")).toBe(Date.UTC(2026, 6, 1, 12));
    expect(parsePattern("2026/01/01 08:00:00", "YYYY/MM/DD HH:mm:ss", "America/New_York")).toBe(Date.UTC(2026, 0, 1, 13));
    expect(formatPattern(Date.UTC(2026, 6, 1, 12), "YYYY-MM-DD HH:mm ZZ", "America/New_York")).toBe("2026-07-01 08:00 -04:00");
  });

  it("refuses text that does not match, and patterns or zones that make no sense", () => {
    expect(parsePattern("2026-01-31 12:00:00", "YYYY/MM/DD HH:mm:ss", "UTC")).toBeNull();
    expect(parsePattern("2026/13/31 12:00:00", "YYYY/MM/DD HH:mm:ss", "UTC")).toBeNull();
    expect(() => tokenizePattern("HH:mm")).toThrow(/needs YYYY, MM and DD/);
    expect(() => tokenizePattern("YYYY[MM")).toThrow(/without/);
    expect(() => checkTimezone("Mars/Olympus")).toThrow(/unknown timezone/);
    expect(() => checkTimezone("+08:00")).not.toThrow();
  });
});

describe("both directions", () => {
  it("converts epoch seconds and ms to ISO and back", () => {
    expect(timeToInternal(NOON_SHANGHAI, "epoch_ms", "created_at")).toBe("2026-01-31T04:00:00Z");
    expect(timeToInternal(String(NOON_SHANGHAI), "epoch_ms", "created_at")).toBe("2026-01-31T04:00:00Z");
    expect(timeToInternal(NOON_SHANGHAI / 1000, "epoch_s", "created_at")).toBe("2026-01-31T04:00:00Z");
    expect(timeToApi("2026-01-31T12:00:00+08:00", "epoch_ms", "created_at")).toBe(NOON_SHANGHAI);
    expect(timeToApi("2026-01-31T12:00:00.5+08:00", "epoch_s", "created_at")).toBe(NOON_SHANGHAI / 1000 + 0.5);
    expect(timeToApi("2026-01-31T12:00:00+08:00", "iso8601", "t")).toBe("2026-01-31T04:00:00Z");
  });

  it("round-trips every format", () => {
    const formats = ["epoch_s", "epoch_ms", "iso8601", { pattern: "YYYYMMDD[T]HHmmssZ", timezone: "+08:00" }, { pattern: "DD.MM.YYYY HH:mm:ss.SSS", timezone: "Europe/Berlin" }] as const;
    for (const f of formats) {
      const internal = "2026-03-29T01:30:15Z";
      expect(timeToInternal(timeToApi(internal, f, "t"), f, "t")).toBe(internal);
    }
  });

  it("names the field and the format when a value does not fit", () => {
    expect(() => timeToInternal("2026-01-31", { pattern: "YYYYMMDD[T]HHmmssZ", timezone: "UTC" }, "created_at")).toThrow(/created_at: "2026-01-31" from the API does not match the declared time format YYYYMMDD\[T\]HHmmssZ/);
    expect(() => timeToInternal("soon", "epoch_ms", "created_at")).toThrow(/created_at/);
    expect(() => timeToApi("31/01/2026", "epoch_ms", "created_at")).toThrow(/created_at: "31\/01\/2026" is not an ISO 8601 date-time with a zone/);
    expect(() => timeToApi(1234, "iso8601", "created_at")).toThrow(/not an ISO 8601/);
  });
});
