import type { Failure } from "./parse";

/** The words of the offline model: summaries of tool results, help, long answers, titles. */

export interface CompletedCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  result?: { text: string; error: boolean };
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function joinAnd(items: string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

export function field(input: unknown, keys: string[]): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  for (const key of keys) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}

function lines(text: string, max: number): string[] {
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "")
    .slice(0, max)
    .map((l) => truncate(l, 120));
}

function excerpt(text: string, max: number): string {
  const head = lines(text, max);
  if (head.length === 0) return "";
  return `\n\n\`\`\`\n${head.join("\n").replace(/```/g, "ʼʼʼ")}\n\`\`\``;
}

/** One line (plus a short excerpt) about a finished tool call. */
/** The first line of a subagent's answer (the task tool wraps it in <task_result>). */
function subagentAnswer(output: string): string {
  const answer = /<task_result>\s*([\s\S]*?)\s*<\/task_result>/.exec(output)?.[1] ?? output;
  return (answer.split("\n").find((line) => line.trim() !== "") ?? "").trim();
}

export function summarize(call: CompletedCall): string {
  const target =
    field(call.input, ["filePath", "path", "file", "pattern", "command", "description"]) ?? call.toolName;
  const head = `**${call.toolName}** \`${truncate(target, 60)}\``;
  const result = call.result;
  if (!result) return `${head}: no result came back.`;
  if (result.error) return `${head} failed: ${truncate(lines(result.text, 1)[0] ?? "unknown error", 200)}`;
  const all = result.text.split("\n").filter((l) => l.trim() !== "");
  switch (call.toolName) {
    case "read":
      return `${head} starts with:${excerpt(result.text, 4)}`;
    case "list":
    case "glob":
      return `${head}: ${all.length} line${all.length === 1 ? "" : "s"} of output, beginning${excerpt(result.text, 5)}`;
    case "grep":
      return `${head}: ${all.length} line${all.length === 1 ? "" : "s"} of results${excerpt(result.text, 3)}`;
    case "bash":
      return `${head} printed${all.length ? excerpt(result.text, 6) : " nothing."}`;
    case "task":
      return `${head}: the subagent answered: ${truncate(subagentAnswer(result.text), 100)}`;
    default:
      return `${head}: ${truncate(lines(result.text, 1)[0] ?? "done", 200)}`;
  }
}

const HELP = [
  "- `list files` (or `list src`)",
  "- `read README.md`",
  "- `grep TODO` or `search for TODO in src`",
  "- `glob **/*.ts` or `find *.ts`",
  "- `write notes.txt: hello world` (or a fenced block)",
  "- `edit notes.txt replace hello with goodbye`",
  "- `run ls -la` (or a command in backticks)",
  "- `todo write tests, fix the bug` or `plan`",
  "- `use a subagent to read README.md`",
].join("\n");

export function helpText(userText: string): string {
  const quoted = userText ? ` You wrote: “${truncate(userText.replace(/\s+/g, " "), 120)}”.` : "";
  return (
    `I'm Parley's built-in offline model: I run without a network and follow simple instructions instead of understanding free text.${quoted}\n\n` +
    `Things I can do:\n${HELP}\n\n` +
    `Combine them with "and" (same step) or "then" (one step after another). ` +
    "To see failures and recovery: `fail with 429`, `fail once with 500`, `hang`, `drop the connection`, `context overflow`. " +
    "For streaming: `write a long answer`, `stream slowly`."
  );
}

export const LONG_SENTENCES = [
  "Streaming means the answer arrives piece by piece instead of all at once.",
  "Each piece is a small text delta that the processor appends to the current text part.",
  "The browser receives the same deltas over Server-Sent Events and renders them as they come.",
  "Deltas are published at once, while writing them to the database is batched.",
  "If the connection drops, a reconnecting client catches up from the stored text and the live offsets.",
  "An abort stops the stream promptly, closes the open parts and marks unfinished tools as aborted.",
  "Retries wait for the delay the provider asks for, or back off exponentially without one.",
  "Usage is estimated at four characters per token, so the cost of this model is always zero.",
];

export function longText(userText: string): string {
  const paragraphs: string[] = [];
  for (let p = 0; p < 6; p++) {
    const sentences = LONG_SENTENCES.map((_, i) => LONG_SENTENCES[(i + p) % LONG_SENTENCES.length] ?? "");
    paragraphs.push(`${p + 1}. ${sentences.join(" ")}`);
  }
  const about = userText ? `Here is a long answer to “${truncate(userText.replace(/\s+/g, " "), 80)}”.\n\n` : "";
  return `${about}${paragraphs.join("\n\n")}`;
}

export function titleFor(userText: string): string {
  const words = userText
    .replace(/```[\s\S]*?```/g, " ")
    .replace(/[^\p{L}\p{N}\s./_-]/gu, " ")
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 6);
  return words.length ? capitalize(words.join(" ")) : "New session";
}

/** The question a compaction asks (server/session/model-messages.ts COMPACTION_QUESTION). */
export const COMPACTION = /^\s*what did we do so far\??\s*$/i;

/** The answer to a compaction: what was asked and which tools ran. */
export function compactionSummary(userTexts: string[], calls: CompletedCall[]): string {
  const asked = userTexts.filter((t) => !COMPACTION.test(t));
  const requests = asked.map((t) => `- ${truncate(t.replace(/\s+/g, " "), 100)}`);
  const tools = calls.map((c) => {
    const target = field(c.input, ["filePath", "path", "pattern", "command", "description"]);
    const state = c.result ? (c.result.error ? "failed" : "done") : "no result";
    return `- ${c.toolName}${target ? ` \`${truncate(target, 60)}\`` : ""} (${state})`;
  });
  return [
    "## Summary of the conversation so far",
    "",
    `The user made ${asked.length} request${asked.length === 1 ? "" : "s"}:`,
    ...(requests.length ? requests : ["- (none)"]),
    "",
    `I made ${tools.length} tool call${tools.length === 1 ? "" : "s"}:`,
    ...(tools.length ? tools : ["- (none)"]),
    "",
    "Continue from here: the next user message says what to do.",
  ].join("\n");
}

export const FAILURE_TEXT: Record<Failure["kind"], string> = {
  status: "",
  overflow: "",
  hang: "Simulating a hang: I'll stop here and wait until the request is aborted…",
  drop: "Simulating a dropped connection: this answer will break off somewhere in the middle of this sentence, and the client should treat it as a lost connection.",
};

export function failureNote(failure: Failure): string {
  const what =
    failure.kind === "status"
      ? `HTTP ${failure.status} error`
      : failure.kind === "overflow"
        ? "context overflow"
        : failure.kind === "hang"
          ? "hang"
          : "dropped connection";
  const attempts = failure.times === 1 ? "the first attempt" : `the first ${failure.times ?? 0} attempts`;
  return `This attempt went through: the simulated ${what} only happens on ${attempts}.`;
}
