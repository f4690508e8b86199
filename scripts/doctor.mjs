#!/usr/bin/env node
/**
 * `npm run doctor -- <model key> [--json]`: the connection doctor on the command line
 * (lib/models/doctor/cli.ts, bundled and run by ./run-ts-tool.mjs). The exit code is the
 * doctor's: 0 no red line, 1 a red line, 2 the check could not run.
 */
import { runTsTool } from "./run-ts-tool.mjs";

await runTsTool({ entry: "lib/models/doctor/cli.ts", name: "doctor", label: "the connection doctor", failCode: 2 });
