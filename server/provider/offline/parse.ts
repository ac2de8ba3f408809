/**
 * How the offline model reads a user message: plain-English commands ("list files and
 * read README.md", "read a.txt then write b.txt: hi"), failure switches ("fail once with
 * 429", "hang", "drop the connection", "context overflow") and style switches ("write a
 * long answer", "write a very long answer", "stream slowly"). Pure and deterministic.
 */

export type Request =
  | { kind: "list"; path: string }
  | { kind: "read"; filePath: string }
  | { kind: "grep"; pattern: string; path?: string }
  | { kind: "glob"; pattern: string; path?: string }
  | { kind: "write"; filePath: string; content: string }
  | { kind: "edit"; filePath: string; oldString: string; newString: string }
  | { kind: "bash"; command: string }
  | { kind: "todo"; items: string[] }
  | { kind: "task"; description: string; prompt: string };

export type FailureKind =
  | { kind: "status"; status: number }
  | { kind: "hang" }
  | { kind: "drop" }
  | { kind: "overflow" };

/** A simulated failure; `times` undefined = every attempt, else only the first `times` attempts. */
export type Failure = FailureKind & { times?: number };

export interface Plan {
  /** Tool requests grouped into steps: one model step per group ("then" starts a new one). */
  steps: Request[][];
  failure?: Failure;
  long: boolean;
  /** "write a very long answer": about 10,000 tokens of markdown (text.ts `veryLongText`). */
  veryLong: boolean;
  slow: boolean;
  /** Report a nearly full context window in the usage (to show compaction). */
  fillContext: boolean;
}

const TIMES = String.raw`(once|twice|thrice|\d+\s+times?)`;

function times(word: string | undefined): number | undefined {
  if (!word) return undefined;
  const w = word.toLowerCase();
  if (w === "once") return 1;
  if (w === "twice") return 2;
  if (w === "thrice") return 3;
  const n = Number.parseInt(w, 10);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

interface Switch {
  re: RegExp;
  apply(plan: Plan, match: RegExpExecArray): void;
}

const SWITCHES: Switch[] = [
  {
    re: new RegExp(
      String.raw`\b(?:fail|error|respond|answer)(?:s|ing)?\s+(?:${TIMES}\s+)?with\s+(?:an?\s+)?(?:(?:http|status|error|code)\s+)*(\d{3})\b(?:\s+${TIMES})?`,
      "i",
    ),
    apply(plan, m) {
      const status = Number(m[2]);
      if (status >= 400 && status <= 599) plan.failure = { kind: "status", status, times: times(m[1] ?? m[3]) };
    },
  },
  {
    re: new RegExp(String.raw`\bdrop(?:s|ping)?\s+the\s+connection\b(?:\s+${TIMES})?`, "i"),
    apply(plan, m) {
      plan.failure = { kind: "drop", times: times(m[1]) };
    },
  },
  {
    re: new RegExp(String.raw`\bhang(?:s|ing)?\b(?:\s+${TIMES})?`, "i"),
    apply(plan, m) {
      plan.failure = { kind: "hang", times: times(m[1]) };
    },
  },
  {
    re: new RegExp(String.raw`\bcontext\s+overflow\b(?:\s+${TIMES})?`, "i"),
    apply(plan, m) {
      plan.failure = { kind: "overflow", times: times(m[1]) };
    },
  },
  {
    re: /\bfill(?:ing)?\s+(?:up\s+)?the\s+context(?:\s+window)?\b/i,
    apply(plan) {
      plan.fillContext = true;
    },
  },
  // Before "long answer", which would otherwise take the "long answer" of "very long answer".
  {
    re: /\b(?:write|give|tell)\s+(?:me\s+)?(?:a\s+)?very\s+long\s+(?:answer|story|response|reply|text|essay)\b|\bvery\s+long\s+answer\b/i,
    apply(plan) {
      plan.veryLong = true;
    },
  },
  {
    re: /\b(?:write|give|tell)\s+(?:me\s+)?(?:a\s+)?long\s+(?:answer|story|response|reply|text|essay)\b|\blong\s+answer\b/i,
    apply(plan) {
      plan.long = true;
    },
  },
  {
    re: /\bstream(?:ing)?\s+(?:it\s+)?(?:very\s+)?slow(?:ly)?\b/i,
    apply(plan) {
      plan.slow = true;
    },
  },
];

const VERB = String.raw`(?:(?:list|ls|read|cat|open|view|grep|search|glob|find|write|create|save|edit|modify|change|update|replace|run|bash|execute|exec|todos?|to-do|plan|make\s+a\s+(?:todo|plan)|task|delegate|use\s+(?:a\s+)?(?:sub-?agent|general\s+agent)|ask\s+a\s+sub-?agent|have\s+a\s+sub-?agent)\b|\x00\d+\x00)`;
const SEQUENTIAL = /\b(?:then|after\s+that|afterwards|next|finally)\b/i;
/**
 * Where one request ends and the next begins: punctuation, a newline or a connector
 * ("and", "then", "after that"…) right before a known verb.
 */
const BOUNDARY = new RegExp(
  String.raw`(?:\s*[,;]\s*|\.\s+|\s*\n\s*|\s+(?=(?:and|also|then|after\s+that|afterwards|next|finally)\b))` +
    String.raw`(?:(?:and\s+)?(?:also\s+)?(?:then|after\s+that|afterwards|next|finally)?[,]?\s*(?:and\s+)?(?:also\s+)?)` +
    String.raw`(?:please\s+)?(?:(?:\d+[.)]|[-*•])\s+)?(?=${VERB})`,
  "gi",
);

const POLITE =
  /^(?:please|kindly|can\s+you|could\s+you|would\s+you|will\s+you|i\s+want\s+you\s+to|i'd\s+like\s+you\s+to|i\s+would\s+like\s+you\s+to|now|also|and|then|next|finally|first(?:ly)?|after\s+that|afterwards|let's|lets|go\s+ahead\s+and|\d+[.)]|[-*•])[,:]?\s+/i;

interface Protected {
  text: string;
  spans: string[];
}

/**
 * Hide fenced blocks (\x02n\x02) and `code` spans (\x00n\x00) so that separators inside
 * them are not split on. A code span may start a clause (a command); a fence may not.
 */
function protect(text: string): Protected {
  const spans: string[] = [];
  const hidden = text.replace(/```[^\n]*\n[\s\S]*?```|`[^`\n]+`/g, (span) => {
    spans.push(span);
    const mark = span.startsWith("```") ? "\x02" : "\x00";
    return `${mark}${spans.length - 1}${mark}`;
  });
  return { text: hidden, spans };
}

function restore(text: string, spans: string[]): string {
  return text.replace(/([\x00\x02])(\d+)\1/g, (_, _mark: string, i: string) => spans[Number(i)] ?? "");
}

/** Strip surrounding quotes/backticks and a fenced block's markers. */
export function unquote(value: string): string {
  let v = value.trim();
  const fence = /^```[^\n]*\n([\s\S]*?)```$/.exec(v);
  if (fence) return fence[1] ?? "";
  for (const q of ['"', "'", "`", "“"]) {
    const close = q === "“" ? "”" : q;
    if (v.length >= 2 && v.startsWith(q) && v.endsWith(close)) {
      v = v.slice(1, -1);
      break;
    }
  }
  return v;
}

function cleanPath(token: string): string {
  return unquote(token.replace(/[.,;:!?)]+$/, "")).replace(/[.,;:!?]+$/, "");
}

const LIST_FILLER = new Set([
  "all", "the", "a", "files", "file", "folders", "folder", "directory", "directories", "dir", "dirs",
  "contents", "content", "entries", "in", "of", "under", "inside", "within", "here", "current",
  "project", "please", "me", "this", "that", "root", "repo", "repository", "workspace",
]);

function parseList(rest: string): Request {
  const tokens = rest.split(/\s+/).filter((t) => t && !LIST_FILLER.has(t.toLowerCase().replace(/[.,!?]+$/, "")));
  const first = tokens[0];
  return { kind: "list", path: first ? cleanPath(first) || "." : "." };
}

const QUOTED = String.raw`(?:"[^"]*"|'[^']*'|\x60[^\x60]*\x60|“[^”]*”)`;

function parseEdit(clause: string): Request | undefined {
  const value = String.raw`(${QUOTED}|[\s\S]+?)`;
  const forward = new RegExp(
    String.raw`^(?:edit|modify|change|update)\s+(?:the\s+)?(?:file\s+)?(\S+?)[:,]?\s+(?:and\s+|to\s+|by\s+)?replac(?:e|ing)\s+${value}\s+with\s+${value}$`,
    "i",
  ).exec(clause);
  if (forward?.[1] && forward[2] !== undefined && forward[3] !== undefined) {
    return { kind: "edit", filePath: cleanPath(forward[1]), oldString: unquote(forward[2]), newString: unquote(forward[3]) };
  }
  const inFile = new RegExp(String.raw`^replace\s+${value}\s+with\s+${value}\s+in\s+(?:the\s+)?(?:file\s+)?(\S+)$`, "i").exec(clause);
  if (inFile?.[1] !== undefined && inFile[2] !== undefined && inFile[3]) {
    return { kind: "edit", filePath: cleanPath(inFile[3]), oldString: unquote(inFile[1]), newString: unquote(inFile[2]) };
  }
  return undefined;
}

const PATHLIKE = /[./]/;

function parseWrite(clause: string): Request | undefined {
  const contentTo = new RegExp(String.raw`^(?:write|save)\s+(${QUOTED})\s+(?:to|into|in)\s+(?:the\s+)?(?:file\s+)?(\S+)$`, "i").exec(clause);
  if (contentTo?.[1] && contentTo[2]) {
    return { kind: "write", filePath: cleanPath(contentTo[2]), content: withNewline(unquote(contentTo[1])) };
  }
  const m =
    /^(?:write|create|save)\s+(?:(?:a|an|the|new)\s+)*(?:file\s+)?(?:called\s+|named\s+)?([^\s:]+?)(?::|\s+with(?:\s+the)?(?:\s+(?:content|contents|text))?:?|\s+containing:?|\s+saying:?|\s*(?=\n|$))\s*([\s\S]*)$/i.exec(
      clause,
    );
  if (!m?.[1]) return undefined;
  const filePath = cleanPath(m[1]);
  if (!PATHLIKE.test(filePath)) return undefined;
  const body = (m[2] ?? "").trim();
  const content = body === "" ? `Written by the Parley offline model.\n` : withNewline(unquote(body));
  return { kind: "write", filePath, content };
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

function shortDescription(prompt: string): string {
  const words = prompt.replace(/[`"'“”]/g, "").split(/\s+/).filter(Boolean).slice(0, 5).join(" ");
  return words.length > 48 ? `${words.slice(0, 47)}…` : words || "Subtask";
}

function parseTodo(rest: string): Request {
  const items = rest
    .split(/\s*(?:[,;\n]|\band\b)\s*/i)
    .map((s) => s.replace(/^(?:\d+[.)]|[-*•])\s*/, "").trim())
    .filter(Boolean);
  return { kind: "todo", items };
}

/** One clause → one request, or undefined when it is not a command the model knows. */
export function parseClause(raw: string): Request | undefined {
  let clause = raw.trim();
  for (let i = 0; i < 6 && POLITE.test(clause); i++) clause = clause.replace(POLITE, "");
  clause = clause.replace(/[\s.!?]+$/, "").trim();
  if (!clause) return undefined;

  let m = /^(?:list|ls)\b\s*([\s\S]*)$/i.exec(clause);
  if (m) return parseList(m[1] ?? "");

  m = /^(?:todos?|to-do(?:\s+list)?|plan|make\s+a\s+(?:todo\s+list|plan)|create\s+a\s+(?:todo\s+list|plan)|write\s+a\s+(?:todo\s+list|plan))\b[\s:,-]*([\s\S]*)$/i.exec(
    clause,
  );
  if (m) return parseTodo(m[1] ?? "");

  m = /^(?:task|delegate|use\s+(?:a\s+)?(?:sub-?agent|general\s+agent)(?:\s+to)?|ask\s+a\s+sub-?agent\s+to|have\s+a\s+sub-?agent)\b[\s:,-]*([\s\S]+)$/i.exec(
    clause,
  );
  if (m?.[1]) {
    const prompt = unquote(m[1].trim());
    return { kind: "task", description: shortDescription(prompt), prompt };
  }

  m = /^(?:read|cat|open|view)\s+(?:the\s+)?(?:contents?\s+of\s+(?:the\s+)?)?(?:file\s+)?(\S+)/i.exec(clause);
  if (m?.[1]) {
    const filePath = cleanPath(m[1]);
    if (filePath && !/^(?:it|this|that|me|them|files?)$/i.test(filePath)) return { kind: "read", filePath };
  }

  m = /^grep\s+(?:for\s+)?([\s\S]+?)(?:\s+in\s+(\S+))?$/i.exec(clause);
  if (m?.[1]) return withPath({ kind: "grep", pattern: unquote(m[1]) }, m[2]);
  m = /^search\s+(?:the\s+(?:code|project|files)\s+)?(?:for\s+)?([\s\S]+?)(?:\s+in\s+(\S+))?$/i.exec(clause);
  if (m?.[1]) return withPath({ kind: "grep", pattern: unquote(m[1]) }, m[2]);

  m = /^glob\s+(?:for\s+)?(\S+)(?:\s+in\s+(\S+))?/i.exec(clause);
  if (m?.[1]) return withPath({ kind: "glob", pattern: unquote(m[1]) }, m[2]);
  m = /^find\s+(?:all\s+)?(?:the\s+)?(?:files?\s+)?(?:named\s+|called\s+|matching\s+)?(\S+)(?:\s+files?)?(?:\s+in\s+(\S+))?$/i.exec(clause);
  if (m?.[1]) {
    const target = unquote(m[1]);
    if (/[*?{[]/.test(target)) return withPath({ kind: "glob", pattern: target }, m[2]);
    if (/\.\w+$/.test(target)) return withPath({ kind: "glob", pattern: `**/${target}` }, m[2]);
    return withPath({ kind: "grep", pattern: target }, m[2]);
  }

  if (/^(?:edit|modify|change|update|replace)\b/i.test(clause)) return parseEdit(clause);
  if (/^(?:write|create|save)\b/i.test(clause)) return parseWrite(clause);

  m = /^(?:run|bash|execute|exec)\s+(?:the\s+)?(?:shell\s+)?(?:command\s+)?([\s\S]+)$/i.exec(clause);
  if (m?.[1]) return { kind: "bash", command: unquote(m[1].trim()) };
  m = /^`([^`\n]+)`$/.exec(clause);
  if (m?.[1]) return { kind: "bash", command: m[1] };

  return undefined;
}

type PathRequest = Extract<Request, { kind: "grep" | "glob" }>;

function withPath(request: PathRequest, path: string | undefined): PathRequest {
  return path ? { ...request, path: cleanPath(path) } : request;
}

/**
 * Clauses that take the rest of the sentence as their argument (a command, file content,
 * a todo list, a subagent prompt) only end at "then", not at "and" or a comma.
 */
function isGreedy(clause: string): boolean {
  const c = clause.trim().replace(POLITE, "");
  if (/^(?:run|bash|execute|exec)\s+(?:the\s+)?(?:shell\s+)?(?:command\s+)?\x00\d+\x00\s*$/i.test(c)) return false;
  if (/^(?:run|bash|execute|exec)\b/i.test(c)) return true;
  if (/^(?:write|create|save)\s+\S+?\s*(?::|\s+with\b|\s+containing\b|\s+saying\b)\s*(?!\x02\d+\x02\s*$)\S/i.test(c)) return true;
  if (/^(?:todos?|to-do|plan|(?:make|create|write)\s+a\s+(?:todo|plan))\b[\s:,-]*\S/i.test(c)) return true;
  return isTask(c);
}

const TASK_START = /^(?:task|delegate|use\s+(?:a\s+)?(?:sub-?agent|general\s+agent)|ask\s+a\s+sub-?agent|have\s+a\s+sub-?agent)\b/i;

/** A clause handing a job to a subagent. */
function isTask(clause: string): boolean {
  return TASK_START.test(clause.trim().replace(POLITE, ""));
}

/** "in parallel, ask two subagents to A and B": one job per subagent, all in one step. */
const PARALLEL = /^(?:in\s+parallel[,:]?\s+)?(?:ask|have|use|start)\s+(?:two|three|four|five|several|\d+)\s+sub-?agents\s+(?:in\s+parallel\s+)?(?:to\s+)?([\s\S]+)$/i;

function parallelTasks(text: string): Request[] | undefined {
  const m = PARALLEL.exec(text.trim().replace(/[\s.!?]+$/, ""));
  if (!m?.[1]) return undefined;
  const jobs = m[1]
    .split(/\s*,\s*(?:and\s+)?|\s+and\s+/i)
    .map((job) => job.trim())
    .filter(Boolean);
  if (jobs.length < 2) return undefined;
  return jobs.map((prompt) => ({ kind: "task", description: shortDescription(prompt), prompt }));
}

interface Segment {
  start: number;
  end: number;
  /** Whether this segment starts a new step ("then", "after that"…). */
  sequential: boolean;
}

function segments(hidden: string): Array<{ text: string; sequential: boolean }> {
  const raw: Segment[] = [];
  let last = 0;
  let sequential = false;
  BOUNDARY.lastIndex = 0;
  for (let m = BOUNDARY.exec(hidden); m; m = BOUNDARY.exec(hidden)) {
    if (m[0].length === 0) {
      BOUNDARY.lastIndex++;
      continue;
    }
    raw.push({ start: last, end: m.index, sequential });
    sequential = SEQUENTIAL.test(m[0]);
    last = m.index + m[0].length;
  }
  raw.push({ start: last, end: hidden.length, sequential });
  // What a greedy clause swallows (up to the next "then") is merged back into it.
  const merged: Segment[] = [];
  for (const segment of raw) {
    const previous = merged[merged.length - 1];
    const text = hidden.slice(previous?.start ?? 0, previous?.end ?? 0);
    // A subagent's prompt runs to the next "then", or to the next clause handing a job to another subagent.
    const anotherTask = isTask(text) && isTask(hidden.slice(segment.start, segment.end));
    if (previous && !segment.sequential && isGreedy(text) && !anotherTask) {
      previous.end = segment.end;
      continue;
    }
    merged.push({ ...segment });
  }
  return merged.map((s) => ({ text: hidden.slice(s.start, s.end), sequential: s.sequential }));
}

/** Parse the last user message. */
export function parseMessage(text: string): Plan {
  const plan: Plan = { steps: [], long: false, veryLong: false, slow: false, fillContext: false };
  const { text: hidden, spans } = protect(text);
  let rest = hidden;
  for (const sw of SWITCHES) {
    const m = sw.re.exec(rest);
    if (!m) continue;
    sw.apply(plan, m);
    rest = `${rest.slice(0, m.index)} ${rest.slice(m.index + m[0].length)}`;
  }
  rest = rest.trim();
  const parallel = parallelTasks(restore(rest, spans));
  if (parallel) {
    plan.steps.push(parallel);
    return plan;
  }
  for (const segment of segments(rest)) {
    const request = parseClause(restore(segment.text, spans));
    if (!request) continue;
    const current = plan.steps[plan.steps.length - 1];
    if (!current || (segment.sequential && current.length > 0)) plan.steps.push([request]);
    else current.push(request);
  }
  return plan;
}

/** More requests than this in one sentence are counted by kind instead of listed one by one. */
const LISTED = 3;

const PLURAL: Record<Request["kind"], (n: number) => string> = {
  list: (n) => `list ${n} folders`,
  read: (n) => `read ${n} files`,
  grep: (n) => `run ${n} searches`,
  glob: (n) => `find files for ${n} patterns`,
  write: (n) => `write ${n} files`,
  edit: (n) => `make ${n} edits`,
  bash: (n) => `run ${n} commands`,
  todo: (n) => `write ${n} todo lists`,
  task: (n) => `hand ${n} jobs to subagents`,
};

/**
 * Several requests in one phrase: each described while there are few ("read `a` and read `b`"),
 * counted by kind when there are many ("hand 10 jobs to subagents"), as a person would say it.
 */
export function describeAll(requests: Request[]): string[] {
  if (requests.length <= LISTED) return requests.map(describe);
  const byKind = new Map<Request["kind"], Request[]>();
  for (const r of requests) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r]);
  return [...byKind].map(([kind, group]) => (group.length === 1 && group[0] ? describe(group[0]) : PLURAL[kind](group.length)));
}

/** A short human description of a request ("read `README.md`"). */
export function describe(request: Request): string {
  switch (request.kind) {
    case "list":
      return request.path === "." ? "list the files" : `list the files in \`${request.path}\``;
    case "read":
      return `read \`${request.filePath}\``;
    case "grep":
      return `search for \`${request.pattern}\`${request.path ? ` in \`${request.path}\`` : ""}`;
    case "glob":
      return `find files matching \`${request.pattern}\``;
    case "write":
      return `write \`${request.filePath}\``;
    case "edit":
      return `edit \`${request.filePath}\``;
    case "bash":
      return `run \`${request.command}\``;
    case "todo":
      return "write a todo list";
    case "task":
      return `hand "${request.description}" to a subagent`;
  }
}
