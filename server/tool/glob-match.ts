/**
 * Globs for `/`-separated relative paths, as the glob, list and grep tools use them.
 * The matching itself lives in lib/match.ts: `*` (any run within a segment), `?` (one
 * character), `**` (any number of segments), `{a,b}` (alternatives, nestable),
 * `[abc]` / `[!abc]` (classes), `\x` (a literal x). Dotfiles are matched like any other
 * name. Matching never backtracks, so no pattern can stall the server, and one matcher
 * spends at most a fixed amount of work over all the paths of a tool call: a pattern too
 * long or too complex for them is a ToolError the model can correct.
 */
import { type Budget, MatchBudgetError, PatternTooLongError, glob } from "../../lib/match";
import { ToolError } from "./tool";

/** NFA steps one matcher may spend (a few hundred ms at worst, far beyond real globs over real trees). */
export const PATH_MATCH_BUDGET = 20_000_000;

/**
 * A matcher for relative paths. A pattern without `/` matches a file's name at any depth
 * (`*.ts` finds `src/a/b.ts`), as in .gitignore; a pattern with `/` matches the whole path.
 */
export function pathMatcher(pattern: string, budget: Budget = { remaining: PATH_MATCH_BUDGET }): (relPath: string) => boolean {
  const relative = pattern.startsWith("./") ? pattern.slice(2) : pattern;
  let compiled: (value: string, budget?: Budget) => boolean;
  try {
    compiled = glob(relative);
  } catch (error) {
    if (error instanceof PatternTooLongError) throw new ToolError(`The glob ${JSON.stringify(pattern.slice(0, 80))}… is too long: ${error.message}`);
    throw error;
  }
  const matches = (rel: string) => {
    try {
      return compiled(rel, budget);
    } catch (error) {
      if (error instanceof MatchBudgetError) throw new ToolError(`The glob ${JSON.stringify(pattern.slice(0, 200))} is too complex for this many paths; use a simpler pattern or a narrower path.`);
      throw error;
    }
  };
  if (!relative.includes("/")) return (rel) => matches(rel.slice(rel.lastIndexOf("/") + 1));
  return matches;
}
