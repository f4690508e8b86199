import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import tseslint from "typescript-eslint";

const config = [
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      // `key in table` also finds inherited names (`constructor`, `__proto__`, …), so a name from
      // outside would look registered. Use hasOwnKey/ownValue from lib/own instead.
      "no-restricted-syntax": [
        "error",
        {
          selector: "BinaryExpression[operator='in'][left.type!='Literal']",
          message: "`key in table` also finds inherited properties; use hasOwnKey()/ownValue() from @/lib/own.",
        },
      ],
    },
  },
  {
    // Type-aware rules on the production code: a promise is awaited, handled or marked `void`, and
    // never handed where a plain value is expected; files stay at most 450 lines.
    files: ["**/*.ts", "**/*.tsx"],
    ignores: ["**/*.test.ts", "test/**", "e2e/**", "bench/**", "*.config.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { "@typescript-eslint": tseslint.plugin },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "max-lines": ["error", { max: 450 }],
    },
  },
  {
    ignores: [".next/**", "node_modules/**", "playwright-report/**", "test-results/**", "next-env.d.ts"],
  },
];

export default config;
