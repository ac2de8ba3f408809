// `prisma generate` without the network: Prisma 7's CLI looks for a native schema engine
// before every command, though `generate` never runs it. Pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file satisfies the check.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const cli = path.join(path.dirname(require.resolve("prisma/package.json")), "build/index.js");
const result = spawnSync(process.execPath, [cli, "generate"], {
  stdio: "inherit",
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
});
process.exit(result.status ?? 1);
