import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { DIST_DIR, ROOT } from "./cluster";

/**
 * The suite runs the production build in PARLEY_DIST_DIR (default `.next`, the build the
 * end-to-end run just made in `npm test`). It is built here when missing, or older than
 * the source it is built from (so a standalone run never tests stale code).
 */

const SOURCES = ["app", "components", "lib", "server", "instrumentation.ts", "proxy.ts", "next.config.ts", "package-lock.json"];

/** The newest modification time under `entry` (ms), skipping generated code. */
function newest(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const name of readdirSync(entry)) {
    if (name === "generated" || name === "node_modules") continue;
    latest = Math.max(latest, newest(path.join(entry, name)));
  }
  return latest;
}

export default function globalSetup(): void {
  const buildId = path.join(ROOT, DIST_DIR, "BUILD_ID");
  const built = existsSync(buildId) ? statSync(buildId).mtimeMs : 0;
  const changed = Math.max(...SOURCES.map((entry) => newest(path.join(ROOT, entry))));
  if (built > changed) {
    console.log(`[instances] using the production build in ${DIST_DIR} (built ${new Date(built).toISOString()})`);
    return;
  }
  console.log(`[instances] ${built ? "the build is older than the source" : "no production build"} in ${DIST_DIR}: building it (next build)`);
  const next = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const result = spawnSync(process.execPath, [next, "build"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, PARLEY_DIST_DIR: DIST_DIR } });
  if (result.status !== 0) throw new Error(`next build failed (${result.status ?? result.signal})`);
}
