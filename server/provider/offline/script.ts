import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
} from "@ai-sdk/provider";
import { type Failure, type Plan, type Request, describe, describeAll, parseMessage } from "./parse";
import {
  COMPACTION,
  type CompletedCall,
  FAILURE_TEXT,
  LONG_SENTENCES,
  capitalize,
  compactionSummary,
  failureNote,
  helpText,
  joinAnd,
  longText,
  summarize,
  titleFor,
  commitMessageFor,
  truncate,
  veryLongText,
} from "./text";

/**
 * What the offline model says next, decided from the conversation alone: the last user
 * message gives the plan; the assistant tool calls and tool results after it tell which
 * step comes next; the tools on offer decide what it may call. Pure and deterministic.
 */

export interface PlannedCall {
  toolName: string;
  input: Record<string, unknown>;
}

export interface Turn {
  reasoning: string;
  text: string;
  calls: PlannedCall[];
  finish: "stop" | "tool-calls";
  /** A simulated failure requested by the user (only on the first step of a turn). */
  failure?: { failure: Failure; reasoning: string; text: string };
  long: boolean;
  veryLong: boolean;
  slow: boolean;
  fillContext: boolean;
}

interface ToolSpec {
  name: string;
  properties: string[];
}

const TOOL_OF: Record<Request["kind"], string> = {
  list: "list",
  read: "read",
  grep: "grep",
  glob: "glob",
  write: "write",
  edit: "edit",
  bash: "bash",
  todo: "todowrite",
  task: "task",
};

/** Attachments are sent as user text starting like this (server/session/model-messages.ts). */
const ATTACHMENT = /^Called the \w+ tool on /;
/** What a loop may say after compacting ("Continue if you have next steps"). */
const CONTINUE = /^\s*(?:please\s+)?continue\b/i;
/** A system prompt asking for a commit message (server/workspace/publish.ts COMMIT_PROMPT). */
const COMMIT_REQUEST = /\bwrite a git commit message\b/i;

/** A system prompt asking for a session title (no tools on offer). */
const TITLE_REQUEST = /\b(?:generate|write|create|give|produce)\b[^.\n]*\btitle\b/i;

function toolSpecs(options: Pick<LanguageModelV4CallOptions, "tools" | "toolChoice">): Map<string, ToolSpec> {
  const specs = new Map<string, ToolSpec>();
  if (options.toolChoice?.type === "none") return specs;
  for (const tool of options.tools ?? []) {
    if (tool.type !== "function") continue;
    if (options.toolChoice?.type === "tool" && options.toolChoice.toolName !== tool.name) continue;
    const schema = tool.inputSchema;
    const properties = typeof schema === "object" && schema.properties ? Object.keys(schema.properties) : [];
    specs.set(tool.name, { name: tool.name, properties });
  }
  return specs;
}

function pick(spec: ToolSpec, candidates: string[]): string {
  return candidates.find((c) => spec.properties.includes(c)) ?? candidates[0] ?? "input";
}

function todos(items: string[]): Array<Record<string, string>> {
  return items.map((content, i) => ({
    id: String(i + 1),
    content,
    status: i === 0 ? "in_progress" : "pending",
    priority: i === 0 ? "high" : "medium",
  }));
}

function toolInput(request: Request, spec: ToolSpec, plan: Plan): Record<string, unknown> {
  const path = (value: string | undefined) => (value ? { [pick(spec, ["path", "directory", "dir"])]: value } : {});
  switch (request.kind) {
    case "list":
      return { [pick(spec, ["path", "directory", "dir"])]: request.path };
    case "read":
      return { [pick(spec, ["filePath", "path", "file"])]: request.filePath };
    case "grep":
      return { [pick(spec, ["pattern", "query", "regex"])]: request.pattern, ...path(request.path) };
    case "glob":
      return { [pick(spec, ["pattern", "glob"])]: request.pattern, ...path(request.path) };
    case "write":
      return { [pick(spec, ["filePath", "path", "file"])]: request.filePath, [pick(spec, ["content", "text"])]: request.content };
    case "edit":
      return {
        [pick(spec, ["filePath", "path", "file"])]: request.filePath,
        [pick(spec, ["oldString", "old_string", "old"])]: request.oldString,
        [pick(spec, ["newString", "new_string", "new"])]: request.newString,
      };
    case "bash": {
      const input: Record<string, unknown> = { [pick(spec, ["command", "cmd"])]: request.command };
      if (spec.properties.includes("description")) input.description = `Run ${truncate(request.command, 60)}`;
      return input;
    }
    case "todo": {
      let items = request.items;
      if (items.length === 0) {
        items = plan.steps.flat().filter((r) => r.kind !== "todo").map((r) => capitalize(describe(r)).replace(/`/g, ""));
      }
      if (items.length === 0) items = ["Understand the request", "Make the change", "Check the result"];
      return { [pick(spec, ["todos", "items"])]: todos(items) };
    }
    case "task": {
      const input: Record<string, unknown> = { description: request.description, prompt: request.prompt };
      if (spec.properties.length === 0 || spec.properties.includes("subagent_type")) input.subagent_type = "general";
      return input;
    }
  }
}

function messageText(message: LanguageModelV4Message): string {
  if (message.role !== "user") return "";
  return message.content
    .filter((p) => p.type === "text" && !ATTACHMENT.test(p.text))
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("\n")
    .trim();
}

export function outputText(output: LanguageModelV4ToolResultOutput): { text: string; error: boolean } {
  switch (output.type) {
    case "text":
      return { text: output.value, error: false };
    case "error-text":
      return { text: output.value, error: true };
    case "json":
    case "error-json": {
      const value = output.value;
      const text =
        typeof value === "string"
          ? value
          : value && typeof value === "object" && "output" in value && typeof value.output === "string"
            ? value.output
            : JSON.stringify(value);
      return { text, error: output.type === "error-json" };
    }
    case "execution-denied":
      return { text: `denied${output.reason ? `: ${output.reason}` : ""}`, error: true };
    case "content":
      return { text: output.value.map((p) => (p.type === "text" ? p.text : "")).join("\n"), error: false };
  }
}

interface Conversation {
  system: string;
  userText: string;
  /** Tool-calling steps after the last user message, oldest first. */
  steps: CompletedCall[][];
  /** Every user text of the conversation (for a compaction summary). */
  userTexts: string[];
  allCalls: CompletedCall[];
}

export function readConversation(prompt: LanguageModelV4Prompt): Conversation {
  let lastUser = -1;
  prompt.forEach((m, i) => {
    if (m.role === "user") lastUser = i;
  });
  const results = new Map<string, { text: string; error: boolean }>();
  for (const m of prompt) {
    if (m.role !== "tool" && m.role !== "assistant") continue;
    for (const part of m.content) if (part.type === "tool-result") results.set(part.toolCallId, outputText(part.output));
  }
  const steps: CompletedCall[][] = [];
  const allCalls: CompletedCall[] = [];
  prompt.forEach((m, i) => {
    if (m.role !== "assistant") return;
    const calls: CompletedCall[] = [];
    for (const part of m.content) {
      if (part.type !== "tool-call") continue;
      calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, result: results.get(part.toolCallId) });
    }
    allCalls.push(...calls);
    if (i > lastUser && calls.length > 0) steps.push(calls);
  });
  const lastUserMessage = prompt[lastUser];
  return {
    system: prompt.map((m) => (m.role === "system" ? m.content : "")).join("\n"),
    userText: lastUserMessage ? messageText(lastUserMessage) : "",
    steps,
    userTexts: prompt.map(messageText).filter(Boolean),
    allCalls,
  };
}

type Base = Pick<Turn, "long" | "veryLong" | "slow" | "fillContext">;
type TurnFailure = Turn["failure"];

/** The tool calls of each step of the plan that the tools offered allow, and the tools that are missing. */
interface Runnable {
  steps: PlannedCall[][];
  requests: Request[][];
  /** A sentence about the requests whose tools are not offered ("" when none is missing). */
  missingNote: string;
}

function runnableSteps(plan: Plan, specs: ReturnType<typeof toolSpecs>): Runnable {
  const missing = new Set<string>();
  const steps: PlannedCall[][] = [];
  const requests: Request[][] = [];
  for (const step of plan.steps) {
    const calls: PlannedCall[] = [];
    const asked: Request[] = [];
    for (const request of step) {
      const name = TOOL_OF[request.kind];
      const spec = specs.get(name);
      if (!spec) {
        missing.add(name);
        continue;
      }
      calls.push({ toolName: name, input: toolInput(request, spec, plan) });
      asked.push(request);
    }
    if (calls.length) {
      steps.push(calls);
      requests.push(asked);
    }
  }
  const missingRequests = plan.steps.flat().filter((r) => missing.has(TOOL_OF[r.kind]));
  const missingNote = missing.size
    ? `I would need the ${joinAnd([...missing].map((n) => `\`${n}\``))} tool${missing.size === 1 ? "" : "s"} to ${joinAnd(missingRequests.map(describe))}, but ${missing.size === 1 ? "it is" : "they are"} not available to me here.`
    : "";
  return { steps, requests, missingNote };
}

/** A title request, a compaction summary or "continue" with nothing left: answered without tools. */
function specialTurn(conversation: Conversation, plan: Plan, base: Base, hasTools: boolean): Turn | undefined {
  const stepIndex = conversation.steps.length;
  if (!hasTools && COMMIT_REQUEST.test(conversation.system) && stepIndex === 0) {
    return { ...base, reasoning: "A commit message is wanted: what the changed files say.", text: commitMessageFor(conversation.userText), calls: [], finish: "stop" };
  }
  if (!hasTools && TITLE_REQUEST.test(conversation.system) && stepIndex === 0) {
    return { ...base, reasoning: "A title is wanted: a few words from the user's message.", text: titleFor(conversation.userText), calls: [], finish: "stop" };
  }
  if (COMPACTION.test(conversation.userText)) {
    return {
      ...base,
      reasoning: "The user wants a summary of the conversation so far; I'll list the requests and the tool calls.",
      text: compactionSummary(conversation.userTexts, conversation.allCalls),
      calls: [],
      finish: "stop",
    };
  }
  if (CONTINUE.test(conversation.userText) && plan.steps.length === 0) {
    return { ...base, reasoning: "The user wants me to go on; nothing from before is left to do.", text: "Nothing is left over from before — send me the next request.", calls: [], finish: "stop" };
  }
  return undefined;
}

/** Step `stepIndex` of the plan: its tool calls, with what was done before and what comes next. */
function toolStep(conversation: Conversation, plan: Plan, runnable: Runnable, base: Base, failure: TurnFailure): Turn {
  const stepIndex = conversation.steps.length;
  const calls = runnable.steps[stepIndex] ?? [];
  const now = joinAnd(describeAll(runnable.requests[stepIndex] ?? []));
  const later = runnable.requests.slice(stepIndex + 1).map((rs) => joinAnd(describeAll(rs)));
  const done = conversation.steps[stepIndex - 1] ?? [];
  const text = [
    stepIndex === 0 ? (failure?.failure.times ? failureNote(failure.failure) : "") : done.map(summarize).join("\n\n"),
    `${stepIndex === 0 ? "I'll" : "Next I'll"} ${now}.${later.length ? ` After that I'll ${later.join(", then ")}.` : ""}`,
    stepIndex === 0 ? runnable.missingNote : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  const reasoning =
    stepIndex === 0
      ? `The user asked me to ${joinAnd(describeAll(plan.steps.flat()))}. ${runnable.steps.length > 1 ? `That takes ${runnable.steps.length} steps; step 1: ` : "I'll "}${calls.length === 1 ? "make one tool call" : `make ${calls.length} tool calls at once`}.`
      : `Step ${stepIndex} is done (${done.length} result${done.length === 1 ? "" : "s"}). Step ${stepIndex + 1} of ${runnable.steps.length}: ${now}.`;
  return { ...base, reasoning: reasoning.replace(/`/g, ""), text, calls, finish: "tool-calls", failure };
}

/** Every tool result is back: a summary of them. */
function resultsTurn(conversation: Conversation, missingNote: string, base: Base): Turn | undefined {
  const completed = conversation.steps.flat();
  if (completed.length === 0) return undefined;
  const failed = completed.filter((c) => c.result?.error).length;
  const text = [
    `Done — ${completed.length} tool call${completed.length === 1 ? "" : "s"}${failed ? `, ${failed} failed` : ""}:`,
    completed.map((c) => `- ${summarize(c).replace(/\n/g, "\n  ")}`).join("\n"),
    missingNote,
  ]
    .filter(Boolean)
    .join("\n\n");
  return {
    ...base,
    reasoning: `All ${completed.length} tool result${completed.length === 1 ? " is" : "s are"} back; I'll summarise ${completed.length === 1 ? "it" : "them"} for the user.`,
    text,
    calls: [],
    finish: "stop",
  };
}

/** No tool to call: the text the message asks for (a long answer, a streaming effect…), or help. */
function textTurn(conversation: Conversation, plan: Plan, missingNote: string, base: Base, failure: TurnFailure): Turn {
  const stepIndex = conversation.steps.length;
  const answer = (reasoning: string, text: string): Turn => ({ ...base, reasoning, text, calls: [], finish: "stop", failure });
  if (missingNote) return answer("The tools this request needs are not available, so I'll say which ones I would need.", missingNote);
  if (plan.veryLong) {
    return answer("The user wants a very long answer; I'll write about ten thousand tokens of markdown in sections.", veryLongText(conversation.userText));
  }
  if (plan.long) return answer("The user wants a long answer; I'll write several paragraphs.", longText(conversation.userText));
  if (plan.failure?.times && stepIndex === 0) return answer("A simulated failure was asked for on earlier attempts only; this one answers.", failureNote(plan.failure));
  if (plan.failure || plan.slow || plan.fillContext) {
    const parts = [
      plan.slow ? `Streaming this answer slowly, a few words at a time, so that you can watch it arrive. ${LONG_SENTENCES.slice(0, 4).join(" ")}` : "",
      plan.fillContext ? "This answer reports an almost full context window, which should trigger compaction." : "",
    ].filter(Boolean);
    if (parts.length) return answer("The user asked for a streaming effect; I'll just answer.", parts.join(" "));
  }
  return answer("I don't recognise a tool request in this message, so I'll answer in text and say what I can do.", helpText(conversation.userText));
}

/** Decide the next turn of the offline model. */
export function nextTurn(options: Pick<LanguageModelV4CallOptions, "prompt" | "tools" | "toolChoice">): Turn {
  const conversation = readConversation(options.prompt);
  const specs = toolSpecs(options);
  const plan = parseMessage(conversation.userText);
  // Once compacted, the conversation must not look full again (or compaction would loop).
  const compacted = conversation.userTexts.some((t) => COMPACTION.test(t));
  const base: Base = { long: plan.long, veryLong: plan.veryLong, slow: plan.slow, fillContext: plan.fillContext && !compacted };
  const special = specialTurn(conversation, plan, base, specs.size > 0);
  if (special) return special;
  const stepIndex = conversation.steps.length;
  const failure: TurnFailure =
    plan.failure && stepIndex === 0
      ? {
          failure: plan.failure,
          reasoning: `The user asked me to simulate a failure (${plan.failure.kind === "status" ? `HTTP ${plan.failure.status}` : plan.failure.kind}).`,
          text: FAILURE_TEXT[plan.failure.kind],
        }
      : undefined;
  const runnable = runnableSteps(plan, specs);
  if (stepIndex < runnable.steps.length) return toolStep(conversation, plan, runnable, base, failure);
  return resultsTurn(conversation, runnable.missingNote, base) ?? textTurn(conversation, plan, runnable.missingNote, base, failure);
}
