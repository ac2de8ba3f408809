import path from "node:path";
import { z } from "zod";
import { unifiedDiff } from "./diff";
import { resolvePath } from "./paths";
import { similarNames } from "./read";
import { define, ToolError } from "./tool";
import { readExisting, shownDiff, writeChecked } from "./write";

const parameters = z.object({
  filePath: z.string().min(1).describe("The file to edit: a path relative to the project directory, or absolute."),
  oldString: z.string().describe("The exact text to replace, including whitespace and indentation (without read's line-number prefixes)."),
  newString: z.string().describe("The text to put in its place (must differ from oldString)."),
  replaceAll: z.boolean().optional().describe("Replace every occurrence of oldString (default false: oldString must occur exactly once)."),
});

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Line (1-based) where `needle` would match if leading/trailing whitespace of each line were ignored. */
function looseMatchLine(content: string, needle: string): number | undefined {
  const lines = content.split("\n").map((l) => l.trim());
  const wanted = needle.split("\n").map((l) => l.trim());
  while (wanted.length > 0 && wanted[wanted.length - 1] === "") wanted.pop();
  while (wanted.length > 0 && wanted[0] === "") wanted.shift();
  if (wanted.length === 0) return undefined;
  for (let i = 0; i + wanted.length <= lines.length; i++) {
    if (wanted.every((w, j) => lines[i + j] === w)) return i + 1;
  }
  return undefined;
}

export const edit = define({
  id: "edit",
  description: [
    "Replace an exact string in a file.",
    "- oldString must match the file exactly (whitespace and indentation included) and, unless replaceAll is set, occur exactly once: include enough surrounding lines to make it unique.",
    "- Read the file first; do not include read's `00001| ` line-number prefixes.",
    "- replaceAll replaces every occurrence (e.g. to rename a variable).",
    "- An empty oldString creates a file that does not exist yet with newString as its content.",
  ].join("\n"),
  parameters,
  async execute(input, ctx) {
    if (input.oldString === input.newString) {
      throw new ToolError("oldString and newString are identical; there is nothing to change.");
    }
    const target = await resolvePath(ctx, input.filePath, { access: "write" });
    const before = await readExisting(ctx, target);

    let after: string;
    let replacements: number;
    if (before === undefined) {
      if (input.oldString !== "") {
        // Names are suggested from the project only: a folder outside is not looked into with the server's rights.
        const suggestions = target.external ? [] : (await similarNames(target.absolute)).map((s) => path.relative(ctx.directory, s));
        throw new ToolError(
          `File not found: ${target.relative}` + (suggestions.length > 0 ? `\n\nDid you mean one of these?\n${suggestions.join("\n")}` : ""),
        );
      }
      after = input.newString;
      replacements = 0;
    } else if (input.oldString === "") {
      if (before !== "") {
        throw new ToolError(`${target.relative} already exists and is not empty: give the oldString to replace, or use the write tool to overwrite it.`);
      }
      after = input.newString;
      replacements = 0;
    } else {
      let oldString = input.oldString;
      let newString = input.newString;
      let count = countOccurrences(before, oldString);
      if (count === 0 && before.includes("\r\n") && !oldString.includes("\r")) {
        // The file has Windows line endings and the model wrote "\n": match with "\r\n".
        oldString = oldString.replace(/\n/g, "\r\n");
        newString = newString.replace(/\r?\n/g, "\r\n");
        count = countOccurrences(before, oldString);
      }
      if (count === 0) {
        const near = looseMatchLine(before, input.oldString);
        throw new ToolError(
          `oldString was not found in ${target.relative}. It must match the file exactly, including whitespace and indentation.` +
            (near !== undefined ? ` A match ignoring indentation exists at line ${near}: read the file again and copy the text exactly.` : " Read the file again to check its current content."),
        );
      }
      if (count > 1 && input.replaceAll !== true) {
        throw new ToolError(
          `Found ${count} matches of oldString in ${target.relative}; give more context to make it unique, or set replaceAll to replace every occurrence.`,
        );
      }
      if (input.replaceAll === true) {
        after = before.split(oldString).join(newString);
        replacements = count;
      } else {
        const at = before.indexOf(oldString);
        after = before.slice(0, at) + newString + before.slice(at + oldString.length);
        replacements = 1;
      }
    }

    const { diff, additions, deletions } = unifiedDiff(target.relative, before ?? "", after);
    await ctx.ask({ permission: "edit", patterns: [target.relative], metadata: { filepath: target.absolute, diff } });
    // What the project's folder grows by (a file outside it is not the project's).
    const growth = target.external ? 0 : Buffer.byteLength(after) - Buffer.byteLength(before ?? "");
    await ctx.quota?.assertRoom(growth, `Cannot edit ${target.relative}`);
    await writeChecked(ctx, target, after);
    ctx.quota?.changed(growth);
    return {
      title: target.relative,
      output: before === undefined ? `Created ${target.relative}.` : `Edit applied to ${target.relative} (${replacements} replacement${replacements === 1 ? "" : "s"}).`,
      metadata: { filePath: target.relative, existed: before !== undefined, ...shownDiff(ctx, target, diff), additions, deletions, replacements },
    };
  },
});
