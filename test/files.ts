import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";

/** Every file below a directory (a `.git` folder aside) with its content; a symlink as "-> target". */
export function fileTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.name === ".git") continue;
      if (entry.isSymbolicLink()) out[path.relative(root, full)] = `-> ${readlinkSync(full)}`;
      else if (entry.isDirectory()) walk(full);
      else out[path.relative(root, full)] = readFileSync(full, "utf8");
    }
  };
  walk(root);
  return out;
}

/**
 * A digest of everything below a directory: names, modes, modification times and contents.
 * `skip`: entry names left out at the top (a `.git` made afterwards, say).
 */
export function directoryDigest(root: string, options: { skip?: string[] } = {}): string {
  const hash = createHash("sha256");
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      if (at === root && options.skip?.includes(name)) continue;
      const full = path.join(at, name);
      const stat = statSync(full);
      hash.update(`${path.relative(root, full)}:${stat.mode}:${stat.mtimeMs}\n`);
      if (stat.isDirectory()) walk(full);
      else hash.update(readFileSync(full));
    }
  };
  walk(root);
  return hash.digest("hex");
}

/** Every regular file below `root` whose bytes contain `needle` (none when `root` is missing). */
export function filesContaining(root: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && readFileSync(full).includes(needle)) hits.push(full);
    }
  };
  if (existsSync(root)) walk(root);
  return hits;
}
