import path from "node:path";
import { defineConfig } from "vitest/config";
import "./test/node20.mjs";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["server/**/*.test.ts", "components/**/*.test.ts", "lib/**/*.test.ts", "test/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    // Two cores: integration files share one embedded PostgreSQL; keep parallelism modest.
    maxWorkers: 2,
    testTimeout: 30_000,
    reporters: ["default", ["json", { outputFile: "reports/vitest.json" }]],
    hookTimeout: 60_000,
  },
});
