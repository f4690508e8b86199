export * from "./schema";
export * from "./registry";
export * from "./aliases";
export * from "./types";
export * from "./usage";
export * from "./client";
export * from "./request";
export * from "./stream";
