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
    ignores: [".next/**", "node_modules/**", "playwright-report/**", "test-results/**", "next-env.d.ts"],
  },
];

export default config;
