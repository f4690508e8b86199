/**
 * A stdio MCP server for tests (run as `node test/helpers/mcp-argv-server.ts <args…>`, Node's
 * own type stripping), built with the official SDK's server classes. It tells whatever it was
 * started with, everywhere a server can: its argv in its tool's description, on its stderr at
 * start, and in its tools' answers, so a test proves that a secret expanded into `args` never
 * reaches the model, the timeline or the browser. Tools:
 * - `whoami` (read-only): its argv and environment as text, as structured content and as a
 *   resource link whose uri carries the first argument;
 * - `crash`: writes its argv to stderr and exits (the error shown then holds the stderr tail).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const argv = process.argv.slice(2);
const started = JSON.stringify(argv);
process.stderr.write(`argv server started with ${started}\n`);

const server = new McpServer({ name: "astrion-test-argv", version: "1.0.0" });
server.registerTool("whoami", { description: `Tells how this server was started (${started}).`, inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
  content: [
    { type: "text", text: `argv: ${started}\nenv: ${JSON.stringify(process.env)}` },
    { type: "resource_link", uri: `https://example.invalid/started?arg=${encodeURIComponent(argv[0] ?? "")}&raw=${argv[0] ?? ""}`, name: `started with ${argv[0] ?? ""}` },
  ],
  structuredContent: { argv },
}));
server.registerTool("crash", { description: "Writes its argv to stderr and exits.", inputSchema: {} }, async () => {
  process.stderr.write(`crashing; argv was ${started}\n`);
  process.exit(1);
});

await server.connect(new StdioServerTransport());
