/**
 * The frontmatter of a repository's markdown file (`.opencode/agent/*.md`,
 * `.opencode/command/*.md`): a `---` block of YAML before the body. The files are
 * untrusted repository content, so they are read by a small, strict parser of the YAML
 * these files use — nested mappings by indentation, plain, quoted and block (`|`, `>`)
 * scalars, one-line flow mappings (`{write: false}`) and lists (`[a, b]`), `#` comments —
 * with no tags, anchors, aliases or anything that runs code, and bounded in size and depth.
 * Anything else is refused with the line it is on.
 */

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value };
export type Mapping = { [key: string]: Value };

/** A frontmatter block larger than this is refused. */
export const MAX_FRONTMATTER_CHARS = 16_384;
const MAX_DEPTH = 6;
const MAX_KEYS = 500;

export class FrontmatterError extends Error {
  constructor(message: string, line?: number) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = "FrontmatterError";
  }
}

/** The frontmatter (empty when the file has none) and the body after it. */
export function splitFrontmatter(text: string): { data: Mapping; body: string } {
  const source = text.replace(/^\uFEFF/, "");
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/.exec(source);
  if (!m) return { data: {}, body: source.trim() };
  const block = m[1] ?? "";
  if (block.length > MAX_FRONTMATTER_CHARS) throw new FrontmatterError(`the frontmatter is longer than ${MAX_FRONTMATTER_CHARS} characters`);
  return { data: parseYaml(block), body: source.slice(m[0].length).trim() };
}

interface Line {
  indent: number;
  text: string;
  number: number;
}

/** The subset of YAML described above, as a mapping. */
export function parseYaml(block: string): Mapping {
  const lines: Line[] = [];
  block.split(/\r?\n/).forEach((raw, i) => {
    if (raw.includes("\t") && /^\s*\t/.test(raw)) throw new FrontmatterError("tabs may not indent", i + 1);
    const text = raw.trimEnd();
    if (text.trim() === "" || text.trim().startsWith("#")) {
      lines.push({ indent: -1, text: "", number: i + 1 });
      return;
    }
    lines.push({ indent: text.length - text.trimStart().length, text: text.trimStart(), number: i + 1 });
  });
  const state = { at: 0, keys: 0 };
  const result = mapping(lines, state, 0, 0);
  const rest = lines.slice(state.at).find((l) => l.indent >= 0);
  if (rest) throw new FrontmatterError("unexpected indentation", rest.number);
  return result;
}

function mapping(lines: Line[], state: { at: number; keys: number }, indent: number, depth: number): Mapping {
  if (depth > MAX_DEPTH) throw new FrontmatterError(`nested deeper than ${MAX_DEPTH} levels`);
  const out: Mapping = Object.create(null) as Mapping;
  while (state.at < lines.length) {
    const line = lines[state.at];
    if (!line) break;
    if (line.indent < 0) {
      state.at++;
      continue;
    }
    if (line.indent < indent) break;
    if (line.indent > indent) throw new FrontmatterError("unexpected indentation", line.number);
    const m = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s:#"'{}[\],&*!|>@`%-][^:#]*?|-[^\s:#][^:#]*?)\s*:(?:\s+(.*))?$/.exec(line.text);
    if (!m?.[1]) throw new FrontmatterError("expected `key: value`", line.number);
    const key = m[1].startsWith('"') || m[1].startsWith("'") ? quoted(m[1], line.number) : m[1];
    if (key === "__proto__" || key === "constructor" || key === "prototype") throw new FrontmatterError(`the key "${key}" is not allowed`, line.number);
    if (Object.prototype.hasOwnProperty.call(out, key)) throw new FrontmatterError(`the key "${key}" is given twice`, line.number);
    if (++state.keys > MAX_KEYS) throw new FrontmatterError(`more than ${MAX_KEYS} keys`);
    state.at++;
    const rest = stripComment(m[2] ?? "");
    if (rest === "") {
      const next = nextContent(lines, state.at);
      out[key] = next && next.indent > indent ? mapping(lines, state, next.indent, depth + 1) : null;
    } else if (rest === "|" || rest === ">" || /^[|>][-+]?$/.test(rest)) {
      out[key] = blockScalar(lines, state, indent, rest);
    } else {
      out[key] = scalarOrFlow(rest, line.number, depth);
    }
  }
  return out;
}

function nextContent(lines: Line[], from: number): Line | undefined {
  for (let i = from; i < lines.length; i++) {
    const line = lines[i];
    if (line && line.indent >= 0) return line;
  }
  return undefined;
}

/** A `|` (lines kept) or `>` (lines folded) block: the lines indented deeper than its key. */
function blockScalar(lines: Line[], state: { at: number }, indent: number, style: string): string {
  const collected: string[] = [];
  let own: number | undefined;
  while (state.at < lines.length) {
    const line = lines[state.at];
    if (!line) break;
    if (line.indent >= 0 && line.indent <= indent) break;
    if (line.indent >= 0) own ??= line.indent;
    collected.push(line.indent < 0 ? "" : " ".repeat(line.indent - (own ?? line.indent)) + line.text);
    state.at++;
  }
  while (collected.length && collected.at(-1) === "") collected.pop();
  const text = style.startsWith(">") ? collected.join("\n").replace(/([^\n])\n(?=[^\n])/g, "$1 ") : collected.join("\n");
  return style.endsWith("-") ? text : `${text}\n`;
}

/** The text before a ` #` comment (outside quotes). */
function stripComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1] ?? ""))) return text.slice(0, i).trim();
  }
  return text.trim();
}

function quoted(text: string, line: number): string {
  if (text.startsWith("'")) {
    if (!/^'(?:[^']|'')*'$/.test(text)) throw new FrontmatterError("an unterminated quoted string", line);
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) throw new FrontmatterError("an unterminated quoted string", line);
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "string") return parsed;
  } catch (error) {
    throw new FrontmatterError(`a quoted string YAML reads differently (${error instanceof Error ? error.message : String(error)})`, line);
  }
  throw new FrontmatterError("a quoted string", line);
}

function scalar(text: string, line: number): Value {
  if (text.startsWith('"') || text.startsWith("'")) return quoted(text, line);
  if (/^[&*!|>%@`]/.test(text)) throw new FrontmatterError(`"${text}": anchors, aliases, tags and reserved characters are not read`, line);
  if (text === "true" || text === "True" || text === "TRUE") return true;
  if (text === "false" || text === "False" || text === "FALSE") return false;
  if (text === "null" || text === "~" || text === "Null" || text === "NULL") return null;
  if (/^[-+]?(?:\d+|\d*\.\d+)(?:[eE][-+]?\d+)?$/.test(text)) return Number(text);
  return text;
}

function scalarOrFlow(text: string, line: number, depth: number): Value {
  if (text.startsWith("{") || text.startsWith("[")) {
    const state = { text, at: 0 };
    const value = flow(state, line, depth + 1);
    if (state.text.slice(state.at).trim() !== "") throw new FrontmatterError("text after a flow collection", line);
    return value;
  }
  return scalar(text, line);
}

/** `{a: b, c: {d: e}}` or `[a, "b"]` on one line. */
function flow(state: { text: string; at: number }, line: number, depth: number): Value {
  if (depth > MAX_DEPTH) throw new FrontmatterError(`nested deeper than ${MAX_DEPTH} levels`, line);
  const skip = () => {
    while (/\s/.test(state.text[state.at] ?? "")) state.at++;
  };
  const open = state.text[state.at];
  const close = open === "{" ? "}" : "]";
  state.at++;
  const map: Mapping = Object.create(null) as Mapping;
  const list: Value[] = [];
  const item = (): Value => {
    skip();
    const c = state.text[state.at];
    if (c === "{" || c === "[") return flow(state, line, depth + 1);
    if (c === '"' || c === "'") {
      const m = (c === '"' ? /^"(?:[^"\\]|\\.)*"/ : /^'(?:[^']|'')*'/).exec(state.text.slice(state.at));
      if (!m) throw new FrontmatterError("an unterminated quoted string", line);
      state.at += m[0].length;
      return quoted(m[0], line);
    }
    const m = /^[^,{}[\]:]*(?::(?!\s)[^,{}[\]:]*)*/.exec(state.text.slice(state.at));
    const raw = m?.[0] ?? "";
    state.at += raw.length;
    return scalar(raw.trim(), line);
  };
  skip();
  if (state.text[state.at] === close) {
    state.at++;
    return open === "{" ? map : list;
  }
  for (;;) {
    const first = item();
    skip();
    if (open === "{") {
      if (state.text[state.at] !== ":") throw new FrontmatterError("expected `key: value` in a flow mapping", line);
      state.at++;
      const key = typeof first === "string" ? first : String(first);
      if (key === "__proto__" || key === "constructor" || key === "prototype") throw new FrontmatterError(`the key "${key}" is not allowed`, line);
      if (Object.prototype.hasOwnProperty.call(map, key)) throw new FrontmatterError(`the key "${key}" is given twice`, line);
      map[key] = item();
      skip();
    } else {
      list.push(first);
    }
    const c = state.text[state.at];
    state.at++;
    if (c === close) return open === "{" ? map : list;
    if (c !== ",") throw new FrontmatterError(`expected "," or "${close}"`, line);
  }
}
