import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { AstrionError } from "@/lib/contracts/errors";
import { craftZip, type CraftEntry } from "@/test/helpers/export/craft-zip";
import { crc32, readZip, unsafeEntryName, type ZipLimits } from "./zip-read";

const LIMITS: ZipLimits = { maxEntries: 20, maxTotalBytes: 1_000_000, maxEntryBytes: 500_000, maxNameBytes: 200 };

async function refusal(data: Uint8Array, limits = LIMITS): Promise<AstrionError> {
  try {
    await readZip(data, limits);
  } catch (error) {
    if (error instanceof AstrionError) return error;
    throw error;
  }
  throw new Error("the archive was accepted");
}

const ok = (entries: CraftEntry[]) => readZip(craftZip(entries), LIMITS);

describe("readZip", () => {
  it("reads stored and deflated entries, with directories apart", async () => {
    const { files, directories } = (await ok([
      { name: "conv_20260101_000000_001/" },
      { name: "a.txt", data: "hello", method: 0 },
      { name: "dir/b.json", data: '{"x":"日本"}' },
    ]));
    expect(directories).toEqual(["conv_20260101_000000_001/"]);
    expect(files.map((f) => [f.name, new TextDecoder().decode(f.data)])).toEqual([
      ["a.txt", "hello"],
      ["dir/b.json", '{"x":"日本"}'],
    ]);
  });

  it("reads what fflate writes", async () => {
    const zip = zipSync({ "x/y.txt": new TextEncoder().encode("fflate"), "z.txt": new Uint8Array(0) });
    expect((await readZip(zip, LIMITS)).files.map((f) => f.name)).toEqual(["x/y.txt", "z.txt"]);
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
  ])("refuses the name %j (zip slip)", async (name, why) => {
    const error = await refusal(craftZip([{ name, data: "x" }]));
    expect(error.status).toBe(400);
    expect(error.message).toContain(why);
  });

  it("refuses a name that is not UTF-8", async () => {
    const error = await refusal(craftZip([{ name: new Uint8Array([0x61, 0xff, 0xfe, 0x2e, 0x74]), data: "x", flags: 0 }]));
    expect(error.message).toMatch(/not UTF-8/);
  });

  it("refuses symbolic links and other non-regular entries", async () => {
    expect((await refusal(craftZip([{ name: "link", data: "/etc/passwd", method: 0, external: (0o120777 << 16) >>> 0 }]))).message).toMatch(/symbolic link/);
    // Labelled as made on MS-DOS, with a link's Unix mode all the same.
    expect((await refusal(craftZip([{ name: "link", data: "/etc/passwd", method: 0, madeBy: 0x0014, external: (0o120777 << 16) >>> 0 }]))).message).toMatch(/symbolic link/);
    expect((await refusal(craftZip([{ name: "fifo", data: "", method: 0, external: (0o010644 << 16) >>> 0 }]))).message).toMatch(/not a regular file/);
  });

  it("refuses duplicate entries, also when they differ only in case", async () => {
    expect((await refusal(craftZip([{ name: "a.txt", data: "1" }, { name: "a.txt", data: "2" }]))).message).toMatch(/duplicate/);
    expect((await refusal(craftZip([{ name: "A.txt", data: "1" }, { name: "a.txt", data: "2" }]))).message).toMatch(/duplicate/);
  });

  it("refuses a zip bomb: output past the declared size is never kept", async () => {
    const big = new Uint8Array(400_000); // compresses to a few hundred bytes
    const error = await refusal(craftZip([{ name: "bomb.json", data: big, declaredSize: 1000 }]));
    expect(error.message).toMatch(/more data than its declared size/);
  });

  it("refuses declared sizes past the limits before inflating anything", async () => {
    expect((await refusal(craftZip([{ name: "a", data: "x", declaredSize: 600_000 }]))).status).toBe(413);
    const many = Array.from({ length: 3 }, (_, i) => ({ name: `f${i}`, data: new Uint8Array(400_000) }));
    expect((await refusal(craftZip(many))).status).toBe(413);
    const entries = Array.from({ length: 21 }, (_, i) => ({ name: `f${i}`, data: "x" }));
    expect((await refusal(craftZip(entries))).message).toMatch(/more than 20 entries/);
  });

  it("refuses entries that share their bytes (overlapping-files bomb)", async () => {
    // Two central records for one local entry: refused (by its name, or as an overlap).
    const error = await refusal(craftZip([{ name: "a", data: "same bytes" }, { name: "b", data: "same bytes", sameDataAs: 0 }]));
    expect(error.message).toMatch(/overlap|local header/);
  });

  it("refuses less data than declared, a bad CRC, and a local header that disagrees", async () => {
    expect((await refusal(craftZip([{ name: "a", data: "short", declaredSize: 9 }]))).message).toMatch(/less data/);
    expect((await refusal(craftZip([{ name: "a", data: "hello", crc: 1234 }]))).message).toMatch(/CRC/);
    expect((await refusal(craftZip([{ name: "safe.txt", data: "x", localName: "../evil" }]))).message).toMatch(/local header/);
  });

  it("refuses encryption, unknown methods and stored entries with two sizes", async () => {
    expect((await refusal(craftZip([{ name: "a", data: "x", flags: 0x0801 }]))).message).toMatch(/encrypted/);
    expect((await refusal(craftZip([{ name: "a", data: "x", method: 12 }]))).message).toMatch(/method 12/);
    expect((await refusal(craftZip([{ name: "a", data: "xyz", method: 0, declaredSize: 2 }]))).message).toMatch(/sizes differ/);
  });

  it("refuses what is not a zip, bytes after the end record, and corrupt deflate data", async () => {
    expect((await refusal(new TextEncoder().encode("just text, not a zip at all"))).message).toMatch(/not a zip/);
    expect((await refusal(craftZip([{ name: "a", data: "x" }], { trailing: new Uint8Array([1, 2, 3]) }))).message).toMatch(/not a zip/);
    const zip = craftZip([{ name: "a", data: "hello hello hello" }]);
    zip[30 + 1] = 0xff; // inside the deflate stream of the first entry
    zip[30 + 2] = 0xff;
    expect((await refusal(zip)).status).toBe(400);
  });
});

describe("unsafeEntryName", () => {
  it("accepts ordinary relative names", () => {
    expect(unsafeEntryName("conv_20260101_000000_001/agents/1/messages.json")).toBeNull();
    expect(unsafeEntryName("a/")).toBeNull();
  });
});

describe("crc32", () => {
  it("is the zip CRC, also computed piece by piece", () => {
    const data = new TextEncoder().encode("123456789");
    expect(crc32(data)).toBe(0xcbf43926);
    expect(crc32(data.subarray(4), crc32(data.subarray(0, 4)))).toBe(0xcbf43926);
  });
});

describe("unpacking a large entry", () => {
  it("gives the event loop back while it inflates", async () => {
    const big = new Uint8Array(8 * 1024 * 1024).map((_, i) => i % 251);
    const zip = craftZip([{ name: "big.bin", data: big }]);
    let done = false;
    let ranBeforeDone = false;
    setImmediate(() => (ranBeforeDone = !done));
    const { files } = await readZip(zip, { ...LIMITS, maxTotalBytes: 10_000_000, maxEntryBytes: 10_000_000 });
    done = true;
    await new Promise((r) => setImmediate(r));
    expect(Buffer.from(files[0]!.data).equals(Buffer.from(big))).toBe(true);
    expect(ranBeforeDone).toBe(true);
  });
});
