/** Types of `core-bundle.mjs` (plain JS so `npm start` runs without a TypeScript loader). */
export declare const CORE_BUNDLE: string;
