/**
 * A small glob → RegExp translator for `/`-separated relative paths:
 * `*` (any run within a segment), `?` (one character), `**` (any number of segments),
 * `{a,b}` (alternatives, nestable), `[abc]` / `[!abc]` (classes), `\x` (a literal x).
 * Dotfiles are matched like any other name.
 */

const SPECIAL = /[.+^$()|[\]\\{}*?/]/;

function escapeChar(c: string): string {
  return SPECIAL.test(c) ? `\\${c}` : c;
}

/** Index of the `}` closing the `{` at `open`, or -1. */
function closingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    const c = glob[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Split the inside of a brace group on its top-level commas. */
function alternatives(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push(body.slice(start, i));
      start = i + 1;
    }
  }
  out.push(body.slice(start));
  return out;
}

function translate(glob: string): string {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const c = glob[i] as string;
    if (c === "\\") {
      const next = glob[i + 1];
      out += next === undefined ? "\\\\" : escapeChar(next);
      i += 2;
    } else if (c === "*") {
      let j = i;
      while (glob[j] === "*") j++;
      const stars = j - i;
      const segmentStart = i === 0 || glob[i - 1] === "/";
      const segmentEnd = j === glob.length || glob[j] === "/";
      if (stars >= 2 && segmentStart && segmentEnd) {
        if (j === glob.length) {
          out += ".*"; // trailing `**`: everything below
          i = j;
        } else {
          out += "(?:[^/]*/)*"; // `**/`: zero or more directories
          i = j + 1;
        }
      } else {
        out += "[^/]*";
        i = j;
      }
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) {
        out += "\\[";
        i++;
      } else {
        let body = glob.slice(i + 1, close);
        const negate = body.startsWith("!") || body.startsWith("^");
        if (negate) body = body.slice(1);
        out += `[${negate ? "^" : ""}${body.replace(/\\/g, "\\\\").replace(/]/g, "\\]")}]`;
        i = close + 1;
      }
    } else if (c === "{") {
      const close = closingBrace(glob, i);
      if (close === -1) {
        out += "\\{";
        i++;
      } else {
        out += `(?:${alternatives(glob.slice(i + 1, close)).map(translate).join("|")})`;
        i = close + 1;
      }
    } else {
      out += escapeChar(c);
      i++;
    }
  }
  return out;
}

export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${translate(glob)}$`);
}

/**
 * A matcher for relative paths. A pattern without `/` matches a file's name at any depth
 * (`*.ts` finds `src/a/b.ts`), as in .gitignore; a pattern with `/` matches the whole path.
 */
export function pathMatcher(glob: string): (relPath: string) => boolean {
  const pattern = glob.startsWith("./") ? glob.slice(2) : glob;
  const regex = globToRegExp(pattern);
  if (!pattern.includes("/")) {
    return (rel) => regex.test(rel.slice(rel.lastIndexOf("/") + 1));
  }
  return (rel) => regex.test(rel);
}
