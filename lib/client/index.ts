/** Browser-side API access: the fetch helper, its error type and a query factory per resource. */
export { ApiError, apiFetch } from "./api";
export * from "./conversations";
export * from "./roles";
export * from "./system";
export { useDebouncedValue } from "./use-debounced-value";
export * from "./live";
export * from "./live-state";
export { useConversationEvents, type ConnectionState } from "./use-conversation-events";
export * from "./timeline";
export * from "./shared-context";
export * from "./export";
export * from "./search";
export * from "./mcp";
export * from "./knowledge";
export * from "./memory";
export * from "./models";
export * from "./doctor";
