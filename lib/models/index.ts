export * from "./schema";
export * from "./registry";
