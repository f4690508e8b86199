/**
 * The file store of Astrion Team: the on-disk contract of SPEC §2 (seed 000) under one data
 * folder. Everything outside lib/store goes through this module.
 */
import "server-only";

export * from "@/lib/contracts/on-disk";
export * from "./json";
export * from "./atomic";
export * from "./time";
export * from "./paths";
export * from "./files";
export * from "./etag";
export * from "./lock";
export { JsonLineFiles } from "./jsonl";
export * from "./conversation-store";
export * from "./conversation-index";
export { type LoggedLineFile } from "./step-records";
export type { Durability, LeaderChangeOptions, Mutator } from "./live-conversation";
export type { ConversationCatalog, InstallMode } from "./catalog";
export type { ReadBudget } from "./folder-files";
