import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { AstrionError } from "@/lib/errors";
import { craftZip, type CraftEntry } from "./testing/craft-zip";
import { crc32, readZip, unsafeEntryName, type ZipLimits } from "./zip-read";

const LIMITS: ZipLimits = { maxEntries: 20, maxTotalBytes: 1_000_000, maxEntryBytes: 500_000, maxNameBytes: 200 };

function refusal(data: Uint8Array, limits = LIMITS): AstrionError {
  try {
    readZip(data, limits);
  } catch (error) {
    if (error instanceof AstrionError) return error;
    throw error;
  }
  throw new Error("the archive was accepted");
}

const ok = (entries: CraftEntry[]) => readZip(craftZip(entries), LIMITS);

describe("readZip", () => {
  it("reads stored and deflated entries, with directories apart", () => {
    const { files, directories } = ok([
      { name: "conv_20260101_000000_001/" },
      { name: "a.txt", data: "hello", method: 0 },
      { name: "dir/b.json", data: '{"x":"日本"}' },
    ]);
    expect(directories).toEqual(["conv_20260101_000000_001/"]);
    expect(files.map((f) => [f.name, new TextDecoder().decode(f.data)])).toEqual([
      ["a.txt", "hello"],
      ["dir/b.json", '{"x":"日本"}'],
    ]);
  });

  it("reads what fflate writes", () => {
    const zip = zipSync({ "x/y.txt": new TextEncoder().encode("fflate"), "z.txt": new Uint8Array(0) });
    expect(readZip(zip, LIMITS).files.map((f) => f.name)).toEqual(["x/y.txt", "z.txt"]);
  });

  it.each([
    ["../evil.txt", "'..'"],
    ["a/../../evil.txt", "'..'"],
    ["/etc/passwd", "absolute"],
    ["a\\..\\evil.txt", "backslash"],
    ["C:/evil.txt", "drive letter"],
    ["c:evil.txt", "drive letter"],
    ["a//b.txt", "empty path segment"],
    ["./a.txt", "'.'"],
    ["a\u0000b.txt", "control character"],
    ["a\nb.txt", "control character"],
  ])("refuses the name %j (zip slip)", (name, why) => {
    const error = refusal(craftZip([{ name, data: "x" }]));
    expect(error.status).toBe(400);
    expect(error.message).toContain(why);
  });

  it("refuses a name that is not UTF-8", () => {
    const error = refusal(craftZip([{ name: new Uint8Array([0x61, 0xff, 0xfe, 0x2e, 0x74]), data: "x", flags: 0 }]));
    expect(error.message).toMatch(/not UTF-8/);
  });

  it("refuses symbolic links and other non-regular entries", () => {
    expect(refusal(craftZip([{ name: "link", data: "/etc/passwd", method: 0, external: (0o120777 << 16) >>> 0 }])).message).toMatch(/symbolic link/);
    // Labelled as made on MS-DOS, with a link's Unix mode all the same.
    expect(refusal(craftZip([{ name: "link", data: "/etc/passwd", method: 0, madeBy: 0x0014, external: (0o120777 << 16) >>> 0 }])).message).toMatch(/symbolic link/);
    expect(refusal(craftZip([{ name: "fifo", data: "", method: 0, external: (0o010644 << 16) >>> 0 }])).message).toMatch(/not a regular file/);
  });

  it("refuses duplicate entries, also when they differ only in case", () => {
    expect(refusal(craftZip([{ name: "a.txt", data: "1" }, { name: "a.txt", data: "2" }])).message).toMatch(/duplicate/);
    expect(refusal(craftZip([{ name: "A.txt", data: "1" }, { name: "a.txt", data: "2" }])).message).toMatch(/duplicate/);
  });

  it("refuses a zip bomb: output past the declared size is never kept", () => {
    const big = new Uint8Array(400_000); // compresses to a few hundred bytes
    const error = refusal(craftZip([{ name: "bomb.json", data: big, declaredSize: 1000 }]));
    expect(error.message).toMatch(/more data than its declared size/);
  });

  it("refuses declared sizes past the limits before inflating anything", () => {
    expect(refusal(craftZip([{ name: "a", data: "x", declaredSize: 600_000 }])).status).toBe(413);
    const many = Array.from({ length: 3 }, (_, i) => ({ name: `f${i}`, data: new Uint8Array(400_000) }));
    expect(refusal(craftZip(many)).status).toBe(413);
    const entries = Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, data: "x" }));
    expect(refusal(craftZip(entries)).message).toMatch(/more than 20 entries/);
  });

  it("refuses entries that share their bytes (overlapping-files bomb)", () => {
    // Two central records for one local entry: refused (by its name, or as an overlap).
    const error = refusal(craftZip([{ name: "a", data: "same bytes" }, { name: "b", data: "same bytes", sameDataAs: 0 }]));
    expect(error.message).toMatch(/overlap|local header/);
  });

  it("refuses less data than declared, a bad CRC, and a local header that disagrees", () => {
    expect(refusal(craftZip([{ name: "a", data: "short", declaredSize: 9 }])).message).toMatch(/less data/);
    expect(refusal(craftZip([{ name: "a", data: "hello", crc: 1234 }])).message).toMatch(/CRC/);
    expect(refusal(craftZip([{ name: "safe.txt", data: "x", localName: "../evil" }])).message).toMatch(/local header/);
  });

  it("refuses encryption, unknown methods and stored entries with two sizes", () => {
    expect(refusal(craftZip([{ name: "a", data: "x", flags: 0x0801 }])).message).toMatch(/encrypted/);
    expect(refusal(craftZip([{ name: "a", data: "x", method: 12 }])).message).toMatch(/method 12/);
    expect(refusal(craftZip([{ name: "a", data: "xyz", method: 0, declaredSize: 2 }])).message).toMatch(/sizes differ/);
  });

  it("refuses what is not a zip, bytes after the end record, and corrupt deflate data", () => {
    expect(refusal(new TextEncoder().encode("just text, not a zip at all")).message).toMatch(/not a zip/);
    expect(refusal(craftZip([{ name: "a", data: "x" }], { trailing: new Uint8Array([1, 2, 3]) })).message).toMatch(/not a zip/);
    const zip = craftZip([{ name: "a", data: "hello hello hello" }]);
    zip[30 + 1] = 0xff; // inside the deflate stream of the first entry
    zip[30 + 2] = 0xff;
    expect(refusal(zip).status).toBe(400);
  });
});

describe("unsafeEntryName", () => {
  it("accepts ordinary relative names", () => {
    expect(unsafeEntryName("conv_20260101_000000_001/agents/1/messages.json")).toBeNull();
    expect(unsafeEntryName("a/")).toBeNull();
  });
});

describe("crc32", () => {
  it("is the zip CRC", () => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
  });
});
