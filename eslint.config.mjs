import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

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
    // Test support lives in test/ (helpers, fixtures, oracles); the app never needs it. Tests,
    // benches and e2e specs import it freely.
    files: ["app/**", "components/**", "lib/**", "scripts/**", "proxy.ts", "instrumentation.ts"],
    ignores: ["**/*.test.ts", "**/*.test.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["@/test/**", "**/test/**"], message: "test support (test/) is for tests; production code must not need it." }] },
      ],
    },
  },
  {
    ignores: [".next/**", "node_modules/**", "playwright-report/**", "test-results/**", "next-env.d.ts"],
  },
];

export default config;
