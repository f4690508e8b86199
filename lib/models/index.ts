export * from "./schema";
export * from "./registry";
export * from "./types";
export * from "./usage";
export * from "./client";
