/**
 * Pattern matching without backtracking, for patterns written by users (permission
 * rules, tool globs). A pattern is compiled to a small program for a Thompson NFA —
 * character tests, `split` (try both branches), `jmp` and `match` — and the program is
 * run over the input with every live state advanced in lockstep (a Pike VM that only
 * answers yes/no). Each state is visited at most once per input character, so a match
 * costs O(input length × program size) in the worst case and no pattern can freeze the
 * process the way a backtracking RegExp can (`*a*a*a*a*a*a*a*a*a*c`).
 *
 * Pure TypeScript without imports: usable on the server and in the browser.
 */

/** Longest pattern accepted by {@link wildcard} and {@link glob}, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 4096;

/** Thrown when a pattern is longer than {@link MAX_PATTERN_LENGTH}; the message is fit to show to the user. */
export class PatternTooLongError extends Error {
  override name = "PatternTooLongError";
  readonly patternLength: number;
  readonly limit = MAX_PATTERN_LENGTH;

  constructor(patternLength: number) {
    super(`Pattern is too long: ${patternLength} characters (the limit is ${MAX_PATTERN_LENGTH}).`);
    this.patternLength = patternLength;
  }
}

/**
 * A shared allowance of matching work (NFA steps) for one decision made of many matches,
 * such as every rule against every part of a command: linear is not enough when both the
 * pattern and the value are long and there are hundreds of rules, so the caller caps the
 * total and treats running out as "too complex to check".
 */
export interface Budget {
  remaining: number;
}

/** Thrown when a match would spend more than its {@link Budget}. */
export class MatchBudgetError extends Error {
  override name = "MatchBudgetError";
  constructor() {
    super("The patterns are too complex to check against this input.");
  }
}

/** A compiled pattern: true when the whole value matches. */
export type Matcher = (value: string, budget?: Budget) => boolean;

// ---------------------------------------------------------------------------------------
// Programs

/** Instructions that consume one character (UTF-16 code unit). */
type CharInst =
  | { op: "lit"; code: number }
  | { op: "any" }
  | { op: "notSlash" }
  /** `ranges` holds inclusive [low, high] pairs; a class never matches `/`. */
  | { op: "class"; negate: boolean; ranges: number[] };

interface SplitInst {
  op: "split";
  x: number;
  y: number;
}
interface JmpInst {
  op: "jmp";
  to: number;
}
type Inst = CharInst | SplitInst | JmpInst | { op: "match" };

/** Pattern syntax trees, built by the parsers below and compiled by `compile`. */
type Node = { kind: "char"; inst: CharInst } | { kind: "seq"; items: Node[] } | { kind: "alt"; options: Node[] } | { kind: "star"; item: Node };

const SLASH = 0x2f;
const ANY: Node = { kind: "char", inst: { op: "any" } };
const NOT_SLASH: Node = { kind: "char", inst: { op: "notSlash" } };

function lit(code: number): Node {
  return { kind: "char", inst: { op: "lit", code } };
}
function seq(items: Node[]): Node {
  return items.length === 1 && items[0] ? items[0] : { kind: "seq", items };
}
function alt(options: Node[]): Node {
  return options.length === 1 && options[0] ? options[0] : { kind: "alt", options };
}
function star(item: Node): Node {
  return { kind: "star", item };
}

/** A step of compilation: a node to emit, or an action (placing or patching a jump) between nodes. */
type Task = Node | (() => void);

/** `split L1, L2; L1: option; jmp end; L2: split …; …; last option; end:` as tasks, in order. */
function expandAlt(options: Node[], prog: Inst[]): Task[] {
  const tasks: Task[] = [];
  const exits: JmpInst[] = [];
  options.forEach((option, index) => {
    if (index === options.length - 1) {
      tasks.push(option);
      return;
    }
    const split: SplitInst = { op: "split", x: -1, y: -1 };
    const exit: JmpInst = { op: "jmp", to: -1 };
    exits.push(exit);
    const enter = () => {
      prog.push(split);
      split.x = prog.length;
    };
    const leave = () => {
      prog.push(exit);
      split.y = prog.length;
    };
    tasks.push(enter, option, leave);
  });
  tasks.push(() => exits.forEach((exit) => (exit.to = prog.length)));
  return tasks;
}

/** `loop: split body, end; body: item; jmp loop; end:` as tasks, in order. */
function expandStar(item: Node, prog: Inst[]): Task[] {
  const split: SplitInst = { op: "split", x: -1, y: -1 };
  let loop = -1;
  const enter = () => {
    loop = prog.length;
    prog.push(split);
    split.x = prog.length;
  };
  const leave = () => {
    prog.push({ op: "jmp", to: loop });
    split.y = prog.length;
  };
  return [enter, item, leave];
}

/**
 * Compile a syntax tree to a program ending in `match`. An explicit task stack instead of
 * recursion keeps deeply nested braces off the call stack.
 */
function compile(root: Node): Inst[] {
  const prog: Inst[] = [];
  const stack: Task[] = [root];
  for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
    if (typeof task === "function") task();
    else if (task.kind === "char") prog.push(task.inst);
    else {
      const tasks = task.kind === "seq" ? task.items : task.kind === "alt" ? expandAlt(task.options, prog) : expandStar(task.item, prog);
      for (let k = tasks.length - 1; k >= 0; k--) stack.push(tasks[k] as Task);
    }
  }
  prog.push({ op: "match" });
  return prog;
}

function inRanges(ranges: number[], code: number): boolean {
  for (let k = 0; k + 1 < ranges.length; k += 2) {
    if (code >= (ranges[k] as number) && code <= (ranges[k + 1] as number)) return true;
  }
  return false;
}

function accepts(inst: CharInst, code: number): boolean {
  switch (inst.op) {
    case "lit":
      return inst.code === code;
    case "any":
      return true;
    case "notSlash":
      return code !== SLASH;
    case "class":
      return code !== SLASH && inRanges(inst.ranges, code) !== inst.negate;
  }
}

/** The live states of one step: the program counters of character tests and `match`. */
interface StateList {
  pcs: Int32Array;
  size: number;
}

const MAX_GENERATION = 0xffffffff;

/**
 * Runs one program (a Pike VM that answers yes/no). The buffers are allocated once per
 * program and reused: a run is synchronous, so runs never overlap.
 */
class Machine {
  private readonly prog: readonly Inst[];
  /** `stamp[pc] === generation`: the state is already in this step's list. */
  private readonly stamp: Uint32Array;
  private readonly stack: Int32Array;
  private current: StateList;
  private next: StateList;
  private generation = 0;

  constructor(prog: readonly Inst[]) {
    this.prog = prog;
    this.stamp = new Uint32Array(prog.length);
    this.stack = new Int32Array(prog.length);
    this.current = { pcs: new Int32Array(prog.length), size: 0 };
    this.next = { pcs: new Int32Array(prog.length), size: 0 };
  }

  /** True when the whole of `input` matches: O(input.length × program size). */
  matches(input: string, budget?: Budget): boolean {
    if (this.generation + input.length + 1 >= MAX_GENERATION) {
      this.stamp.fill(0);
      this.generation = 0;
    }
    this.current.size = 0;
    this.addState(0, this.current, ++this.generation);
    for (let i = 0; i < input.length; i++) {
      if (this.current.size === 0) return false;
      if (budget && (budget.remaining -= this.current.size) < 0) throw new MatchBudgetError();
      this.step(input.charCodeAt(i), ++this.generation);
    }
    const { pcs, size } = this.current;
    for (let k = 0; k < size; k++) {
      if (this.prog[pcs[k] as number]?.op === "match") return true;
    }
    return false;
  }

  /** Advance every live state over the character `code`. */
  private step(code: number, generation: number): void {
    const { prog, current, next, stamp } = this;
    next.size = 0;
    for (let k = 0; k < current.size; k++) {
      const pc = current.pcs[k] as number;
      const inst = prog[pc] as Inst;
      if (inst.op === "match" || inst.op === "split" || inst.op === "jmp" || !accepts(inst, code)) continue;
      if (stamp[pc + 1] !== generation) this.addState(pc + 1, next, generation);
    }
    this.current = next;
    this.next = current;
  }

  /**
   * Add `start` and everything reachable from it through `split`/`jmp` to `list`. A
   * stamped state is never added twice in a step, which bounds the work per step by the
   * program size (and makes empty loops harmless).
   */
  private addState(start: number, list: StateList, generation: number): void {
    let top = this.push(start, 0, generation);
    while (top > 0) {
      const pc = this.stack[--top] as number;
      const inst = this.prog[pc] as Inst;
      if (inst.op === "split") top = this.push(inst.x, this.push(inst.y, top, generation), generation);
      else if (inst.op === "jmp") top = this.push(inst.to, top, generation);
      else list.pcs[list.size++] = pc;
    }
  }

  /** Stamp `pc` and push it on the work stack unless this step already has it; returns the new top. */
  private push(pc: number, top: number, generation: number): number {
    if (this.stamp[pc] === generation) return top;
    this.stamp[pc] = generation;
    this.stack[top] = pc;
    return top + 1;
  }
}

/** A matcher for `prog`. */
function matcher(prog: readonly Inst[]): Matcher {
  const machine = new Machine(prog);
  return (value, budget) => machine.matches(value, budget);
}

function checkLength(pattern: string): void {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new PatternTooLongError(pattern.length);
}

// ---------------------------------------------------------------------------------------
// Permission wildcards

function parseWildcard(pattern: string, end: number): Node[] {
  const items: Node[] = [];
  for (let i = 0; i < end; i++) {
    const c = pattern[i];
    if (c === "*") {
      if (pattern[i - 1] !== "*") items.push(star(ANY)); // `**` is the same as `*`
    } else if (c === "?") items.push(ANY);
    else items.push(lit(pattern.charCodeAt(i)));
  }
  return items;
}

/** Where a wildcard's first and last `*`/`?` are (-1 when it has none). */
function specials(pattern: string): { first: number; last: number } {
  let first = -1;
  let last = -1;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c !== "*" && c !== "?") continue;
    if (first === -1) first = i;
    last = i;
  }
  return { first, last };
}

/**
 * The common shapes need no machine at all — an exact string, `*`, `prefix*`,
 * `prefix *` — and any other pattern is first checked against its literal prefix and
 * suffix, which rejects most values before the NFA runs.
 */
function compileWildcard(pattern: string): Matcher {
  checkLength(pattern);
  const { first, last } = specials(pattern);
  if (first === -1) return (value) => value === pattern;
  if (pattern === "*") return () => true;
  const prefix = pattern.slice(0, first);
  if (first === last && pattern[first] === "*" && first === pattern.length - 1) {
    if (prefix.endsWith(" ")) {
      const bare = prefix.slice(0, -1);
      return (value) => value === bare || value.startsWith(prefix);
    }
    return (value) => value.startsWith(prefix);
  }
  const suffix = pattern.slice(last + 1);
  const optionalTail = pattern.endsWith(" *");
  const machine = compileWildcardMachine(pattern);
  return (value, budget) => value.startsWith(prefix) && (optionalTail || value.endsWith(suffix)) && machine(value, budget);
}

function compileWildcardMachine(pattern: string): Matcher {
  let root: Node;
  if (pattern.endsWith(" *")) {
    // `git status *` also matches `git status`: the " *" suffix is optional.
    const prefix = parseWildcard(pattern, pattern.length - 2);
    root = seq([...prefix, alt([seq([]), seq([lit(0x20), star(ANY)])])]);
  } else {
    root = seq(parseWildcard(pattern, pattern.length));
  }
  return matcher(compile(root));
}

const WILDCARD_CACHE_LIMIT = 5000;
const wildcardCache = new Map<string, Matcher>();

/**
 * Compile a permission wildcard. `*` matches any run of characters (including none,
 * `/` and newlines), `?` exactly one UTF-16 code unit (newlines too), every other
 * character is literal; the whole value must match, case-sensitively. A pattern ending
 * in `" *"` also matches the value without that suffix: `git status *` matches
 * `git status` and `git status -s` but not `git statusx`.
 *
 * Matching is linear in the value (times the pattern size): no backtracking. Compiled
 * patterns are kept in a bounded cache. Throws {@link PatternTooLongError}.
 */
export function wildcard(pattern: string): Matcher {
  const cached = wildcardCache.get(pattern);
  if (cached) return cached;
  const matcher = compileWildcard(pattern);
  if (wildcardCache.size >= WILDCARD_CACHE_LIMIT) {
    const oldest = wildcardCache.keys().next();
    if (!oldest.done) wildcardCache.delete(oldest.value);
  }
  wildcardCache.set(pattern, matcher);
  return matcher;
}

// ---------------------------------------------------------------------------------------
// Path globs. Each parser works on `pattern[start, end)`: a brace alternative is parsed
// as a glob of its own, so its edges count as segment edges for `**`.

/** Index of the `}` closing the `{` at `open` (before `end`), or -1. `\x` is skipped. */
function closingBrace(pattern: string, open: number, end: number): number {
  let depth = 0;
  for (let i = open; i < end; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

/** The [start, end) bounds of the top-level comma-separated alternatives in `pattern[start, end)`. */
function alternatives(pattern: string, start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  let depth = 0;
  let from = start;
  for (let i = start; i < end; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push([from, i]);
      from = i + 1;
    }
  }
  out.push([from, end]);
  return out;
}

/**
 * A class `[abc]`, `[a-z]`, `[!abc]`/`[^abc]` starting at `open`, or undefined when no
 * `]` closes it (then `[` is literal). A `]` right after `[` is a member, but `[!]` is a
 * negated empty class (any character but `/`); `\` is an ordinary member; a reversed
 * range such as `z-a` matches nothing.
 * A class never matches `/`, negated or not: the old RegExp translation let `[!a]`
 * (and `[/]`) match `/`, which let a glob cross directory boundaries.
 */
function parseClass(pattern: string, open: number, end: number): { node: Node; next: number } | undefined {
  const close = pattern.indexOf("]", open + 2);
  if (close === -1 || close >= end) return undefined;
  let k = open + 1;
  const negate = pattern[k] === "!" || pattern[k] === "^";
  if (negate) k++;
  const ranges: number[] = [];
  while (k < close) {
    const low = pattern.charCodeAt(k);
    if (pattern[k + 1] === "-" && k + 2 < close) {
      ranges.push(low, pattern.charCodeAt(k + 2));
      k += 3;
    } else {
      ranges.push(low, low);
      k++;
    }
  }
  return { node: { kind: "char", inst: { op: "class", negate, ranges } }, next: close + 1 };
}

/**
 * A run of `*` at `i`. As a whole segment, `**` at the end matches everything below and
 * `**` followed by `/` matches zero or more directories; otherwise any run of stars
 * matches within one segment.
 */
function parseStars(pattern: string, i: number, start: number, end: number, items: Node[]): number {
  let j = i;
  while (j < end && pattern[j] === "*") j++;
  const segmentStart = i === start || pattern[i - 1] === "/";
  const segmentEnd = j === end || pattern[j] === "/";
  if (j - i >= 2 && segmentStart && segmentEnd) {
    if (j === end) {
      items.push(star(ANY));
      return j;
    }
    items.push(star(seq([star(NOT_SLASH), lit(SLASH)])));
    return j + 1;
  }
  items.push(star(NOT_SLASH));
  return j;
}

/** A range of the pattern being parsed: the whole pattern or one brace alternative. */
interface Level {
  start: number;
  end: number;
  i: number;
  items: Node[];
}

/** An open `{…}` group: its alternatives' bounds, the ones parsed so far, where to resume. */
interface Group {
  ranges: [number, number][];
  options: Node[];
  parent: Level;
  next: number;
}

/**
 * Parse one element at `level.i` into `level.items`. For a closed `{` the group is pushed
 * on `groups` and the level of its first alternative is returned.
 */
function parseElement(pattern: string, level: Level, groups: Group[]): Level {
  const { i, start, end, items } = level;
  const c = pattern[i];
  const cls = c === "[" ? parseClass(pattern, i, end) : undefined;
  const close = c === "{" ? closingBrace(pattern, i, end) : -1;
  if (cls) {
    items.push(cls.node);
    level.i = cls.next;
  } else if (close !== -1) {
    const ranges = alternatives(pattern, i + 1, close);
    groups.push({ ranges, options: [], parent: level, next: close + 1 });
    const [from, to] = ranges[0] as [number, number];
    return { start: from, end: to, i: from, items: [] };
  } else if (c === "\\") {
    items.push(lit(pattern.charCodeAt(i + 1 < end ? i + 1 : i))); // a trailing `\` is literal
    level.i += 2;
  } else if (c === "*") {
    level.i = parseStars(pattern, i, start, end, items);
  } else {
    items.push(c === "?" ? NOT_SLASH : lit(pattern.charCodeAt(i)));
    level.i++;
  }
  return level;
}

/**
 * Parse a glob. Each brace alternative is parsed as a glob of its own (its edges are
 * segment edges for `**`); open groups live on an explicit stack, not the call stack.
 */
function parseGlob(pattern: string): Node {
  const groups: Group[] = [];
  let level: Level = { start: 0, end: pattern.length, i: 0, items: [] };
  for (;;) {
    if (level.i < level.end) {
      level = parseElement(pattern, level, groups);
      continue;
    }
    const group = groups.at(-1);
    if (!group) return seq(level.items);
    group.options.push(seq(level.items));
    const range = group.ranges[group.options.length];
    if (range) {
      level = { start: range[0], end: range[1], i: range[0], items: [] };
    } else {
      groups.pop();
      group.parent.items.push(alt(group.options));
      group.parent.i = group.next;
      level = group.parent;
    }
  }
}

/**
 * Compile a glob for `/`-separated relative paths. `*` matches any run within one path
 * segment; `**` as a whole segment matches across segments (a trailing `**` everything
 * below, `**` followed by `/` zero or more directories), elsewhere it acts as `*`; `?` matches one
 * character except `/`; `[abc]`, `[a-z]`, `[!abc]`/`[^abc]` are classes (never matching
 * `/`); `\x` is a literal x; `{a,b}` are alternatives (nestable, each one a glob); an
 * unclosed `[` or `{` is literal. Dotfiles match like other names; the whole path must
 * match, case-sensitively.
 *
 * Braces become NFA alternation, not textual expansion, so the program stays linear in
 * the pattern, and matching is linear in the path (times the program size).
 * Throws {@link PatternTooLongError}.
 */
export function glob(pattern: string): Matcher {
  checkLength(pattern);
  return matcher(compile(parseGlob(pattern)));
}
