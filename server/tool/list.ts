import { promises as fs } from "node:fs";
import { z } from "zod";
import { errorCode, IGNORED_DIRECTORIES, walk, type WalkEntry } from "./files";
import { pathMatcher } from "./glob-match";
import { listOutside } from "./outside";
import { resolvePath } from "./paths";
import { define, ToolError } from "./tool";

export const LIST_LIMIT = 100;
/** How deep a listing outside the project looks. */
const OUTSIDE_LIST_DEPTH = 4;

const parameters = z.object({
  path: z.string().optional().describe("The directory to list, relative to the project directory or absolute (default: the project directory)."),
  ignore: z.array(z.string()).optional().describe("Glob patterns of entries to leave out, e.g. [\"*.log\", \"fixtures/**\"]."),
});

function render(entries: WalkEntry[]): string[] {
  const children = new Map<string, WalkEntry[]>();
  for (const entry of entries) {
    const parent = entry.rel.includes("/") ? entry.rel.slice(0, entry.rel.lastIndexOf("/")) : "";
    const list = children.get(parent) ?? [];
    list.push(entry);
    children.set(parent, list);
  }
  const lines: string[] = [];
  const visit = (parent: string, indent: string) => {
    const list = [...(children.get(parent) ?? [])].sort((a, b) => {
      const dirA = a.kind === "directory" ? 0 : 1;
      const dirB = b.kind === "directory" ? 0 : 1;
      return dirA - dirB || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    });
    for (const entry of list) {
      if (entry.kind === "directory") {
        lines.push(`${indent}${entry.name}/`);
        visit(entry.rel, `${indent}  `);
      } else {
        lines.push(`${indent}${entry.name}${entry.kind === "symlink" ? " (symlink)" : ""}`);
      }
    }
  };
  visit("", "  ");
  return lines;
}

export const list = define({
  id: "list",
  description: [
    "List the files and directories below a directory of the project, as a tree.",
    `- Skips dependency, build and VCS directories (${[...IGNORED_DIRECTORIES].slice(0, 6).join(", ")}, …).`,
    `- Shows at most ${LIST_LIMIT} entries, breadth first; list a subdirectory or use glob to narrow down.`,
    "- Prefer glob and grep when you know what you are looking for.",
  ].join("\n"),
  parameters,
  async execute(input, ctx) {
    const target = await resolvePath(ctx, input.path, { kind: "directory" });
    await ctx.ask({ permission: "list", patterns: [target.relative], metadata: { path: target.absolute } });
    const ignores = (input.ignore ?? []).map((pattern) => pathMatcher(pattern.replace(/\/+$/, "")));
    const skip = (e: WalkEntry) => ignores.some((m) => m(e.rel));
    const entries: WalkEntry[] = [];
    let truncated = false;
    let cut = false;
    if (target.external && !target.saved) {
      // Outside the project: listed in the sandbox, a few levels deep.
      const listing = await listOutside(ctx, target, { maxDepth: OUTSIDE_LIST_DEPTH });
      cut = listing.cut;
      const hidden = new Set<string>();
      for (const entry of listing.entries) {
        const parent = entry.rel.includes("/") ? entry.rel.slice(0, entry.rel.lastIndexOf("/")) : "";
        if (hidden.has(parent) || skip(entry)) {
          hidden.add(entry.rel);
          continue;
        }
        if (entries.length >= LIST_LIMIT) {
          truncated = true;
          break;
        }
        entries.push(entry);
      }
    } else {
      try {
        const stat = await fs.stat(target.absolute);
        if (!stat.isDirectory()) throw new ToolError(`${target.relative} is not a directory. Use the read tool to read a file.`);
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw new ToolError(`Directory not found: ${target.relative}`);
        throw error;
      }
      for await (const entry of walk(target.absolute, { signal: ctx.abort, skip })) {
        if (entries.length >= LIST_LIMIT) {
          truncated = true;
          break;
        }
        entries.push(entry);
      }
    }

    // Project-relative (the output reaches share-link viewers): "./" for the project itself.
    const lines = [`${target.relative}/`, ...render(entries)];
    if (entries.length === 0) lines.push("  (empty)");
    if (truncated) {
      lines.push("", `(Showing the first ${LIST_LIMIT} entries; there are more. List a subdirectory or use glob to narrow down.)`);
    } else if (cut) {
      lines.push("", "(The listing was stopped before its end: list a subdirectory to see more.)");
    }
    const files = entries.filter((e) => e.kind !== "directory").length;
    return {
      title: target.relative,
      output: lines.join("\n"),
      metadata: { path: target.relative, count: entries.length, files, capped: truncated },
    };
  },
});
