/** Types of `node-version.mjs` (plain JS so `npm start` runs without a TypeScript loader). */
export declare function requiredMajor(range: string): number;
export declare function nodeVersionProblem(version: string, range: string): string | null;
