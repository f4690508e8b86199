/**
 * The cap on a tool result sent to a model, where the workspace has always offered it
 * (`@/lib/workspace/cap` is importable without the server-only workspace face). The logic lives
 * in one place, `lib/tools/shape`: JSON shrunk by its structure, other text cut with a marker.
 */
export { capToolOutput } from "@/lib/tools/shape";
