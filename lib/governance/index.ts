/**
 * The governance layer's routing, privilege, audit and entry-limit parts (issue 4, seed 003
 * §2.1–2.2, §6.2–6.4): the capability registry, intent routing with the role whitelist,
 * per-agent scoped tokens, audit summaries, the entry rate limit and bounded inboxes.
 */
export * from "./registry";
export * from "./vocabulary";
export * from "./role-index";
export * from "./intent";
export * from "./permissions";
export * from "./audit";
export * from "./rate-limit";
export * from "./inbox";
export * from "./tool-policy";
