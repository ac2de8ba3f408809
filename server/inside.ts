import path from "node:path";

/**
 * Whether `child` is `parent` or lies below it, both absolute and normalized: the one
 * containment check of the sandbox, projects and tools. By name only — resolving links
 * is the caller's (a real path in, a real path out). A child named `..foo` is inside.
 */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!path.isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${path.sep}`));
}
