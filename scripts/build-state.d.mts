/** Types of `build-state.mjs` (plain JS so `npm start` runs without a TypeScript loader). */
export declare function buildNeeded(root: string): "missing" | "stale" | null;
export declare function tryBuildLock(root: string): (() => void) | null;
export declare function ensureBuild(root: string, env?: NodeJS.ProcessEnv, options?: { toStderr?: boolean }): Promise<number>;
