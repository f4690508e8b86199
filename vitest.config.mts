import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = path.dirname(fileURLToPath(import.meta.url));
const alias = { "@": here, "server-only": path.join(here, "test/server-only-shim.ts") };

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          // test/conformance: the ports' conformance suites, which need no server.
          include: ["lib/**/*.test.ts", "components/**/*.test.ts", "scripts/**/*.test.ts", "test/helpers/**/*.test.ts", "test/conformance/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["test/**/*.test.ts"],
          exclude: ["test/helpers/**", "test/conformance/**"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // One real server per file; files run one at a time so two servers never share a port race.
          fileParallelism: false,
        },
      },
    ],
  },
});
