/**
 * The connection doctor: checks one registry entry's server, key, model, stream, tool calls,
 * parallel tool calls, thinking switch and usage, each line green, amber (a workaround the app
 * applies) or red (with its fix). Reached by `POST /api/models/{key}/doctor` (through the
 * server's core) and `npm run doctor -- <key>` (./cli.ts).
 */
export { doctorForKey } from "./for-key";
