import { taskAnswer } from "../../../lib/task-result";
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
  const answer = taskAnswer(output);
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
    "For streaming: `write a long answer`, `write a very long answer` (about 10,000 tokens), `stream slowly`."
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

/** About how many tokens (four characters each, as the usage counts them) the very long answer is. */
export const VERY_LONG_TOKENS = 10_000;
/** Room left for the reasoning, so that the reply's output tokens come to about VERY_LONG_TOKENS. */
const VERY_LONG_CHARS = VERY_LONG_TOKENS * 4 - 120;

const TOPICS: Array<{ title: string; points: string[] }> = [
  {
    title: "How a reply travels",
    points: ["the model emits `text-delta` events", "the processor appends them to the open text part", "the bus publishes each change once", "the browser merges it into its copy"],
  },
  {
    title: "Deltas and offsets",
    points: ["every delta carries the `offset` it starts at", "text already held is skipped", "a gap waits for the full part", "nothing is ever shown twice"],
  },
  {
    title: "Writing to the database",
    points: ["deltas are batched before they are stored", "one statement writes many parts", "a crash loses at most one batch", "a reload reads the stored text"],
  },
  {
    title: "Rendering markdown while it grows",
    points: ["finished blocks keep their rendered form", "only the last block is parsed again", "code is highlighted once it is complete", "the list re-renders once per frame"],
  },
  {
    title: "Reconnecting",
    points: ["the stream resumes after a dropped connection", "the newest page is read again", "live offsets fill what was missed", "the status comes back with the first event"],
  },
  {
    title: "Aborting a reply",
    points: ["**Stop** ends the stream promptly", "open parts are closed with their text so far", "unfinished tools are marked as aborted", "the session returns to idle"],
  },
  {
    title: "Retries and backoff",
    points: ["a `429` waits for the delay the provider asks for", "a `500` backs off exponentially", "each attempt is shown in the chat", "a reply that keeps failing ends with an error"],
  },
  {
    title: "Usage and cost",
    points: ["tokens are estimated at four characters each", "input, output and reasoning are counted apart", "the session keeps running totals", "the offline model costs nothing"],
  },
  {
    title: "Tools in a reply",
    points: ["a tool call streams its input first", "the card moves from pending to running to completed", "its output is kept with the part", "the model reads the result in the next step"],
  },
  {
    title: "Keeping the page responsive",
    points: ["no task on the main thread should take more than `50 ms`", "work is spread over animation frames", "off-screen messages are not in the DOM", "scrolling stays smooth while text arrives"],
  },
  {
    title: "Compaction",
    points: ["a full context window asks for a summary", "older tool output is cleared for the model", "the summary starts the next part of the session", "the user still sees everything"],
  },
  {
    title: "Sharing a session",
    points: ["a share link shows the conversation read-only", "the same stream feeds the shared view", "revoking the link closes it at once", "no action is offered to a visitor"],
  },
];

const PROSE = [
  "A reply is not a single response but a long sequence of small events, each of which changes the page a little.",
  "The server forwards every change as soon as it has it, and the browser decides how often to paint.",
  "Batching matters on both sides: the database prefers few large writes, and the browser prefers one update per frame.",
  "When the connection is healthy the delay between the model and the screen is a few milliseconds.",
  "A slow client never slows the model down, because every subscriber reads the bus at its own pace.",
  "The same code path serves a fresh page load, a reconnection and a live stream, so they cannot drift apart.",
  "Markdown is parsed in blocks, and a block that has ended never changes again.",
  "Headings, lists, tables and fenced code all arrive piece by piece, and the renderer has to cope with half of each.",
  "An unfinished code fence is shown as code straight away, and highlighted once its closing fence arrives.",
  "Long answers are where small inefficiencies add up, since the work per update grows with the text.",
  "Measuring with real browsers is the only way to know that the page stays smooth.",
  "Each of these steps is tested on its own, and the whole path is tested end to end.",
  "Nothing here depends on the model being fast or slow: the pace only changes how long the reply takes.",
  "The text stored at the end is exactly the text that was streamed, character for character.",
  "Users notice a frozen page far more than a slightly slower answer.",
  "A reload in the middle of a reply shows the text so far and then keeps streaming without duplicates.",
  "The offline model says the same thing every time, which makes its answers useful in tests.",
  "Every figure in this answer is an example, chosen to look like something a real system would report.",
  "Splitting the work into small pieces keeps each task short, which is what the long task check measures.",
  "The answer ends with a summary, like a real one would.",
];

function prose(start: number, count: number): string {
  const sentences: string[] = [];
  for (let i = 0; i < count; i++) sentences.push(PROSE[(start + i * 7) % PROSE.length] ?? "");
  return sentences.join(" ");
}

function codeBlock(n: number): string {
  switch (n % 3) {
    case 0:
      return [
        "```ts",
        `export async function collectReply${n}(deltas: AsyncIterable<string>, signal: AbortSignal): Promise<string> {`,
        `  let text = "";`,
        "  for await (const delta of deltas) {",
        "    if (signal.aborted) break;",
        "    text += delta;",
        `    if (text.length > ${n * 1_000}) report("section ${n}", text.length);`,
        "  }",
        "  return text;",
        "}",
        "```",
      ].join("\n");
    case 1:
      return [
        "```bash",
        `# Follow the events of session ${n} as they arrive`,
        `curl -N "http://127.0.0.1:3000/api/sessions/ses_${String(n).padStart(4, "0")}/events"`,
        `npx playwright test e2e/long-answer.spec.ts --retries 0 --grep "section ${n}"`,
        "```",
      ].join("\n");
    default:
      return [
        "```json",
        "{",
        `  "type": "message.part.updated",`,
        `  "offset": ${n * 128},`,
        `  "delta": "text of section ${n}",`,
        `  "final": ${n % 2 === 0 ? "true" : "false"}`,
        "}",
        "```",
      ].join("\n");
  }
}

function section(n: number): string {
  const topic = TOPICS[(n - 1) % TOPICS.length] ?? { title: "More details", points: [] };
  const blocks = [`## ${n}. ${topic.title}`, `Section ${n} is about ${topic.title.toLowerCase()}. ${prose(n * 3, 5)}`];
  if (n % 2 === 1) blocks.push(`What matters in section ${n}:`, topic.points.map((p) => `- ${capitalize(p)}`).join("\n"));
  else blocks.push(`### In practice (${n})`, prose(n * 5 + 1, 3));
  if (n % 3 === 0) blocks.push(`An example for section ${n}:`, codeBlock(n / 3));
  if (n % 4 === 0) blocks.push(topic.points.map((p, i) => `${i + 1}. ${capitalize(p)} (step ${i + 1} of section ${n}).`).join("\n"));
  if (n % 5 === 0) blocks.push(`> **Note ${n / 5}:** ${prose(n, 2)}`);
  if (n % 7 === 0) {
    blocks.push(
      [
        "| Stage | Where it runs | Typical time |",
        "| --- | --- | --- |",
        `| Model emits a delta | provider | ${n % 5} ms |`,
        `| Server publishes it | bus | ${(n % 3) + 1} ms |`,
        `| Browser renders it | main thread | ${(n % 4) + 2} ms |`,
      ].join("\n"),
    );
  }
  blocks.push(prose(n * 11 + 2, 3));
  return blocks.join("\n\n");
}

/**
 * The very long answer: about VERY_LONG_TOKENS tokens of markdown in numbered sections —
 * paragraphs, bullet and numbered lists, fenced code (TypeScript, shell, JSON), quotes and
 * tables — so that a renderer streaming it does real work. Deterministic; no trailing space.
 */
export function veryLongText(userText: string): string {
  const about = userText ? `Here is a very long answer to “${truncate(userText.replace(/\s+/g, " "), 80)}”.` : "Here is a very long answer.";
  let text = `# A long guide to streaming replies\n\n${about} ${prose(0, 3)}`;
  const summary = "## Summary\n\nThat was a long answer.";
  for (let n = 1; ; n++) {
    const next = `\n\n${section(n)}`;
    if (text.length + next.length + summary.length + 2 > VERY_LONG_CHARS) break;
    text += next;
  }
  text += `\n\n${summary}`;
  for (let i = 0; text.length + 1 + (PROSE[i % PROSE.length] ?? "").length <= VERY_LONG_CHARS && i < 4 * PROSE.length; i++) {
    text += ` ${PROSE[i % PROSE.length] ?? ""}`;
  }
  return text;
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

/**
 * A commit message from the file list a commit request starts with ("added src/a.ts
 * (+1 -0)" per line): what was added, changed and removed.
 */
export function commitMessageFor(userText: string): string {
  const files: { status: string; file: string }[] = [];
  for (const line of userText.split("\n")) {
    const match = /^(added|modified|deleted|type-changed) (.+) \(\+\d+ -\d+\)$/.exec(line.trim());
    if (match?.[1] && match[2]) files.push({ status: match[1], file: match[2] });
  }
  if (files.length === 0) return "Update files";
  const verb = (status: string) => (status === "added" ? "Add" : status === "deleted" ? "Remove" : "Update");
  const [first] = files;
  if (files.length === 1 && first) return `${verb(first.status)} ${first.file}`;
  const verbs = new Set(files.map((f) => verb(f.status)));
  const [only] = verbs;
  const summary = `${verbs.size === 1 && only ? only : "Change"} ${files.length} files`;
  return `${summary}\n\n${files.map((f) => `- ${verb(f.status).toLowerCase()} ${f.file}`).join("\n")}`;
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
