/**
 * Public face of the protocol gateway (seed 003 §3.2): non-MCP APIs declared in
 * `<data folder>/gateway.json` (first dialect: OpenAPI 3) offered to sub-agents as tools named
 * `gw__<source>__<operation>`. The gateway only maps — field renames, linear unit conversions,
 * time formats — and does no business logic. Server only: the client imports `./schema`.
 */
import "server-only";
;
;
export { gatewayGrant, grantsTool } from "./grants";
export { parseGatewayToolName } from "./openapi";
export { findGatewayTool, GatewayLastErrors, gatewayProblems, gatewayReport, gatewayToolSpecs, runGatewayCall } from "./service";
export * from "./schema";
