import "server-only";
/**
 * `npm run doctor -- <key> [--json]` (bundled and run by scripts/doctor.mjs): reads models.json
 * from the data folder the server would (`ASTRION_HOME`, else the default), applies the
 * environment as the server does, runs the connection doctor on the entry and prints its lines
 * with green/amber/red marks (or the report as JSON). Exit code 0 when no line is red, 1 when one
 * is, 2 when the check could not run (bad arguments, unknown key, a broken models.json).
 */
import { z } from "zod";
import { ModelKeySchema, type DoctorReport } from "@/lib/contracts/http";
import { resolveDataRoot } from "@/lib/store/paths";
import { FileQueues } from "@/lib/store";
import { ModelKeyStore } from "../key-store";
import { doctorForKey } from "./for-key";

const ArgsSchema = z.object({ key: ModelKeySchema, json: z.boolean() });

const MARKS = { green: "✔", amber: "▲", red: "✘" } as const;
const COLOURS = { green: "\u001b[32m", amber: "\u001b[33m", red: "\u001b[31m" } as const;

/** The lines a person reads. */
export function formatReport(report: DoctorReport, colour: boolean): string {
  const out = [`Connection doctor: ${report.model_key} (provider ${report.provider.profile}${report.provider.source === "named" ? "" : `, ${report.provider.source}${report.provider.detail ? `: ${report.provider.detail}` : ""}`})`];
  for (const l of report.lines) {
    const mark = colour ? `${COLOURS[l.status]}${MARKS[l.status]} ${l.status.padEnd(5)}\u001b[0m` : `${MARKS[l.status]} ${l.status.padEnd(5)}`;
    out.push(`${mark} ${l.check.padEnd(19)} ${l.text}`);
    if (l.said) out.push(`${" ".repeat(28)}the server said: ${l.said}`);
  }
  if (report.skipped.length) out.push(`  not checked: ${report.skipped.join(", ")}`);
  out.push(report.ok ? `No red line (${report.ms} ms).` : `Red lines found (${report.ms} ms).`);
  return out.join("\n");
}

/** Runs the command line with `argv` (without node and the script); resolves to the exit code. */
export async function main(argv: readonly string[], io: { out: (s: string) => void; err: (s: string) => void; colour: boolean } = { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`), colour: Boolean(process.stdout.isTTY) }): Promise<number> {
  const positional = argv.filter((a) => !a.startsWith("--"));
  const unknown = argv.filter((a) => a.startsWith("--") && a !== "--json");
  const parsed = ArgsSchema.safeParse({ key: positional[0] ?? "", json: argv.includes("--json") });
  if (!parsed.success || positional.length !== 1 || unknown.length) {
    io.err(`Usage: npm run doctor -- <model key> [--json]${unknown.length ? ` (unknown option ${unknown.join(", ")})` : parsed.success ? "" : ` (${parsed.error.issues[0]?.message ?? "bad key"})`}`);
    return 2;
  }
  const { key, json } = parsed.data;
  try {
    const root = resolveDataRoot();
    // Keys typed in Settings → Models are read from the data folder's key store, as the server reads them.
    const keys = new ModelKeyStore(root, new FileQueues());
    await keys.refresh();
    const report = await doctorForKey(root, key, { storedKey: (ref) => keys.peek(ref) });
    io.out(json ? JSON.stringify(report, null, 2) : formatReport(report, io.colour));
    return report.ok ? 0 : 1;
  } catch (error) {
    io.err(error instanceof Error ? error.message : String(error));
    return 2;
  }
}
