import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The import graph of a folder of TypeScript sources (tests left out), type-only imports
 * included: `import … from`, `export … from`, `import type`, `import("…")`, resolved for
 * relative paths and the `@/` alias (the repository root). Package imports are not edges.
 */

export const ROOT = path.resolve(import.meta.dirname, "..");

const SOURCE = /\.(ts|tsx)$/;
const TEST = /\.(test|spec)\.(ts|tsx)$|(^|\/)testing\.ts$/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name === "generated" || entry.name === "node_modules") continue;
      out.push(...sources(at));
    } else if (SOURCE.test(entry.name) && !TEST.test(at) && !entry.name.endsWith(".d.ts")) out.push(at);
  }
  return out;
}

/** Module specifiers a file imports (comments stripped; strings inside template literals are not read as imports). */
export function specifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const patterns = [/^\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']/gms, /^\s*import\s+["']([^"']+)["']/gm, /\bimport\(\s*["']([^"']+)["']\s*\)/g];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) if (match[1]) found.push(match[1]);
  return found;
}

function resolve(from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith("@/")) base = path.join(ROOT, specifier.slice(2));
  else if (specifier.startsWith(".")) base = path.resolve(path.dirname(from), specifier);
  else return undefined;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")]) {
    if (existsSync(candidate) && statSync(candidate).isFile() && SOURCE.test(candidate)) return candidate;
  }
  return undefined;
}

/** file → the files of `dir` it imports (paths relative to the repository root). */
export function importGraph(dir: string): Map<string, Set<string>> {
  const files = sources(path.join(ROOT, dir));
  const inside = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of specifiers(readFileSync(file, "utf8"))) {
      const target = resolve(file, specifier);
      if (target && inside.has(target) && target !== file) targets.add(path.relative(ROOT, target));
    }
    graph.set(path.relative(ROOT, file), targets);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan): each is a circle of imports. */
export function circles(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return out;
}

/** The imports that tie a circle: every edge between two of its files. */
export function edgesWithin(graph: Map<string, Set<string>>, circle: string[]): string[] {
  const members = new Set(circle);
  const edges: string[] = [];
  for (const file of circle) for (const target of graph.get(file) ?? []) if (members.has(target)) edges.push(`${file} -> ${target}`);
  return edges;
}
