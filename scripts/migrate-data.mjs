#!/usr/bin/env node
/**
 * `npm run migrate-data -- --from <data folder> --to <postgres URL>` (or the other way round, with
 * `--replace` to write over a target that is not empty): moves a data folder's conversations into
 * PostgreSQL and back (docs/postgresql.md; lib/pg/migrate-data/cli.ts, bundled and run by
 * ./run-ts-tool.mjs). The exit code is the tool's: 0 moved, 1 refused or failed,
 * 2 bad arguments.
 */
import { runTsTool } from "./run-ts-tool.mjs";

await runTsTool({ entry: "lib/pg/migrate-data/cli.ts", name: "migrate-data", label: "migrate-data", failCode: 1 });
