import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { errorCode, walk } from "./files";
import { pathMatcher } from "./glob-match";
import { listOutside } from "./outside";
import { resolvePath } from "./paths";
import { define, ToolError } from "./tool";

export const GLOB_LIMIT = 100;

const parameters = z.object({
  pattern: z.string().min(1).describe('The glob to match, relative to the search directory, e.g. "**/*.ts", "src/**/*.{ts,tsx}", "*.md".'),
  path: z.string().optional().describe("The directory to search in (default: the project directory)."),
});

export const glob = define({
  id: "glob",
  description: [
    "Find files by name with a glob pattern; the newest files (by modification time) come first.",
    "- Supports `*` (any characters except `/`), `?` (one character), `**` (any number of directories), `{a,b}` (alternatives) and `[abc]`.",
    "- A pattern without `/` matches file names at any depth: `*.ts` finds every TypeScript file.",
    "- Dependency, build and VCS directories (node_modules, .git, dist, …) are skipped.",
    `- At most ${GLOB_LIMIT} files are returned; use a more specific pattern or path when there are more.`,
    "- To search file contents use grep.",
  ].join("\n"),
  parameters,
  async execute(input, ctx) {
    if (path.isAbsolute(input.pattern)) {
      throw new ToolError("The pattern must be relative to the search directory; put the directory in `path` instead.");
    }
    const target = await resolvePath(ctx, input.path, { kind: "directory" });
    await ctx.ask({ permission: "glob", patterns: [input.pattern], metadata: { path: target.absolute } });
    const matches = pathMatcher(input.pattern);
    const found: { file: string; mtime: number }[] = [];
    if (target.external && !target.saved) {
      // Outside the project: found in the sandbox.
      const listing = await listOutside(ctx, target);
      for (const entry of listing.entries) {
        if (entry.kind !== "directory" && matches(entry.rel)) found.push({ file: path.join(target.absolute, entry.rel), mtime: entry.mtime });
      }
    } else {
      try {
        const stat = await fs.stat(target.absolute);
        if (!stat.isDirectory()) throw new ToolError(`${target.relative} is not a directory.`);
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw new ToolError(`Directory not found: ${target.relative}`);
        throw error;
      }
      for await (const entry of walk(target.absolute, { signal: ctx.abort })) {
        if (entry.kind === "directory" || !matches(entry.rel)) continue;
        let mtime = 0;
        try {
          mtime = (await fs.lstat(entry.path)).mtimeMs;
        } catch (error) {
          if (errorCode(error) === "ENOENT") continue; // removed while searching
          throw error;
        }
        found.push({ file: entry.path, mtime });
      }
    }
    found.sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file));

    const shown = found.slice(0, GLOB_LIMIT).map((f) => (target.external ? f.file : path.relative(ctx.directory, f.file)));
    const lines = shown.length > 0 ? shown : ["No files found"];
    if (found.length > GLOB_LIMIT) {
      lines.push("", `(Showing the ${GLOB_LIMIT} newest of ${found.length} files. Use a more specific pattern or path.)`);
    }
    return {
      title: input.pattern,
      output: lines.join("\n"),
      metadata: { count: found.length, capped: found.length > GLOB_LIMIT, path: target.relative },
    };
  },
});
