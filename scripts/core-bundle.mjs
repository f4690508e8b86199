/**
 * Where `npm run build` puts the server's core (scripts/build-core.mjs) and scripts/serve.mjs
 * loads it from, relative to the repository root. Plain JS, like serve.mjs.
 */
export const CORE_BUNDLE = ".next/astrion-core/core.mjs";
