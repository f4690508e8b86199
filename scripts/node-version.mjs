/**
 * The Node version `npm start` runs on: the one `engines.node` of package.json names (">=24"),
 * checked before anything else is loaded, so an older Node stops with one line saying what it
 * needs instead of failing later (node:sqlite, the `openai` SDK) or running half-supported.
 * Plain JS with no syntax newer than Node 12's, so that an old Node can read it.
 */

/** The major version a `>=N` (or `>=N.x.y`) range asks for; throws on any other form. */
export function requiredMajor(range) {
  const match = /^>=\s*(\d+)(?:\.\d+){0,2}$/.exec(String(range).trim());
  if (!match) throw new Error(`engines.node must be a ">=N" range, not "${range}"`);
  return Number(match[1]);
}

/** Why `version` (as `process.version` says it) cannot run the app, or null when it can. */
export function nodeVersionProblem(version, range) {
  const need = requiredMajor(range);
  const major = Number(/^v?(\d+)\./.exec(version)?.[1] ?? NaN);
  if (major >= need) return null;
  return `Astrion Team needs Node ${need} or later (package.json engines.node "${range}"); this is Node ${version} at ${process.execPath}.`;
}
