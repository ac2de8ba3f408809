import path from "node:path";
import { DEFAULT_AGENT } from "../agent/agent";
import { DECISION_BUDGET, type Layer, MatchBudgetError, decide, layers } from "../permission/layers";
import type { Permissions } from "../permission/permission";
import type { Info } from "../session/info";
import type { APIError, FileDiff, InstructionSource, Message, MessageError, Part, PartOf } from "../session/message";
import type { MessagePage } from "../session/transcript";
import { type PathScope, relativeRecord, relativeText, rewrite, swapsOf } from "./paths";

/**
 * REDACTION: what an anonymous share viewer may see of a session, a message, a part, an
 * error or a turn's diff. Every string loses the server's folders (paths relative to the
 * project, the data directory a placeholder: paths.ts); internal ids (team, project,
 * author, workspace), permission rules, provider headers and bodies, unexpected errors'
 * text, instruction files' text and the content written into files the project's read
 * rules hide are left out. Pure functions of what is stored and a `ViewerScope`; reading
 * the shared tree is shared-session.ts's.
 */

/** Where a project's read rules come from (server/permission/permission.ts). */
export type RuleSource = Pick<Permissions, "stack">;

/**
 * Where the server keeps a shared tree's files, for rewriting them out of what viewers
 * read (the project directory becomes project-relative paths, the data directory a
 * placeholder), and the read rules every file a viewer is shown must pass.
 */
export interface ViewerScope extends PathScope {
  /** The built-in defaults, the server config, the team's and the project's policy (never an agent's, an approval or a session's rules). */
  rules: Layer[];
}

/** What a viewer is told instead of an error nobody expected (it may quote SQL, stack frames or paths). */
export const UNEXPECTED_ERROR = "The server ran into an unexpected error.";

/**
 * The read rules of a project as a viewer is held to them: a file is shown only when
 * reading it is allowed outright by the built-in defaults, the server config, the team's
 * policy and the project's. An agent's rules, stored approvals and a session's own rules
 * are the members' business (they let an agent read; they show nobody anything).
 */
export async function readRules(source: RuleSource, teamId: string, projectId: string): Promise<Layer[]> {
  const stack = await source.stack(teamId, projectId, DEFAULT_AGENT, undefined);
  return layers({ ...stack, agent: [], session: undefined }, { members: [], admins: [] });
}

/**
 * Whether a viewer may see a file's changes: reading it is allowed by `scope.rules`. A
 * path inside the project is matched as the tools match it (relative to the project),
 * one outside by its absolute path; rules too costly to check hide the file.
 */
export function visibleFile(file: string, scope: Pick<ViewerScope, "directory" | "rules">): boolean {
  let pattern = file;
  if (path.isAbsolute(file) && scope.directory.length > 0) {
    const inside = path.relative(scope.directory, file);
    if (!inside.startsWith("..") && !path.isAbsolute(inside)) pattern = inside || ".";
  }
  try {
    return decide("read", pattern, scope.rules, { budget: { remaining: DECISION_BUDGET } }).action === "allow";
  } catch (error) {
    if (error instanceof MatchBudgetError) return false;
    throw error;
  }
}

function visibleDiffs(diffs: FileDiff[], scope: ViewerScope): FileDiff[] {
  return diffs.filter((diff) => visibleFile(diff.file, scope));
}

/**
 * A session as an anonymous viewer sees it: no internal id (team, project, author, workspace), no
 * server directory, no permission rules; its title with paths relative, its summary
 * without the files the read rules hide.
 */
export function forViewer(info: Info, scope: ViewerScope): Info {
  const { permission: _rules, revert, summary, status, workspaceId: _workspace, ...rest } = info;
  const relative = (text: string) => relativeText(text, scope, info.id);
  // A revert's diff may show what was written into secret files: viewers get where it stands, not the diff.
  const shownRevert = revert ? { messageId: revert.messageId, ...(revert.partId ? { partId: revert.partId } : {}) } : undefined;
  return {
    ...rest,
    teamId: "",
    projectId: "",
    directory: "",
    authorId: "",
    title: relative(info.title),
    ...(summary ? { summary: summaryForViewer(summary, scope) } : {}),
    ...(status ? { status: status.type === "retry" ? { ...status, message: relative(status.message) } : status } : {}),
    ...(shownRevert ? { revert: shownRevert } : {}),
  };
}

function summaryForViewer(summary: NonNullable<Info["summary"]>, scope: ViewerScope): NonNullable<Info["summary"]> {
  if (!summary.diffs) return summary;
  const diffs = visibleDiffs(summary.diffs, scope);
  return {
    additions: diffs.reduce((sum, d) => sum + d.additions, 0),
    deletions: diffs.reduce((sum, d) => sum + d.deletions, 0),
    files: diffs.length,
    diffs,
  };
}

type ToolPart = PartOf<"tool">;

/**
 * A part as an anonymous viewer sees it: the server's folders taken out of every string
 * (text, reasoning, tool input, output, title, metadata, errors, files); a patch lists
 * only the files the read rules show; an edit of a file the rules would not let the
 * agent read freely (its tool result says `diffHidden`, or the rules say so now) keeps its
 * path and outcome but not the content the model wrote into it.
 */
export function partForViewer(part: Part, scope: ViewerScope): Part {
  const relative = (text: string) => relativeText(text, scope, part.sessionId);
  switch (part.type) {
    case "text":
    case "reasoning":
      return textForViewer(part, rewrite(part.text, swapsOf(scope, part.sessionId), streamedTextDone(part)).out, scope);
    case "file":
      return fileForViewer(part, relative);
    case "tool":
      return relativeTool(nestedRulesForViewer(withoutSecrets(part, scope), scope), scope);
    case "patch":
      return { ...part, files: part.files.filter((file) => visibleFile(file, scope)) };
    case "subtask":
      return { ...part, prompt: relative(part.prompt), description: relative(part.description) };
    case "retry":
      return { ...part, error: apiErrorForViewer(part.error, relative) };
    default:
      return part;
  }
}

type TextLike = PartOf<"text"> | PartOf<"reasoning">;

/** Whether a text or reasoning part is complete (a user's text has no times); until then its end may still become a folder's name. */
export function streamedTextDone(part: TextLike): boolean {
  return part.time?.end !== undefined || (part.type === "text" && part.time === undefined);
}

/** A text or reasoning part shown with `text` (its text as rewritten for viewers), its metadata's paths relative. */
export function textForViewer<T extends TextLike>(part: T, text: string, scope: ViewerScope): T {
  if (!part.metadata) return { ...part, text };
  return { ...part, text, metadata: relativeRecord(part.metadata, (value) => relativeText(value, scope, part.sessionId)) };
}

function fileForViewer(part: PartOf<"file">, relative: (text: string) => string): PartOf<"file"> {
  const source = part.source
    ? { ...part.source, path: relative(part.source.path), ...(part.source.text ? { text: { ...part.source.text, value: relative(part.source.text.value) } } : {}) }
    : undefined;
  // A data: URL is the file's content, not a place.
  const url = part.url.startsWith("data:") ? part.url : relative(part.url);
  return { ...part, url, ...(part.filename !== undefined ? { filename: relative(part.filename) } : {}), ...(source ? { source } : {}) };
}

function withoutSecrets(part: ToolPart, scope: ViewerScope): ToolPart {
  if (part.tool !== "write" && part.tool !== "edit") return part;
  const state = part.state;
  const filePath = state.input.filePath;
  const hidden = (state.status === "completed" && state.metadata.diffHidden === true) || (typeof filePath === "string" && !visibleFile(filePath, scope));
  if (!hidden) return part;
  const { content: _content, oldString: _old, newString: _new, ...input } = state.input;
  const redacted = { ...input, contentHidden: true };
  if (state.status === "pending") return { ...part, state: { ...state, input: redacted, raw: "" } };
  if (state.status === "running" || state.status === "error") return { ...part, state: { ...state, input: redacted } };
  const { diff: _diff, ...metadata } = state.metadata;
  return { ...part, state: { ...state, input: redacted, metadata } };
}

/** A tool part whose input, output, title, metadata and error name files relative to the project. */
function relativeTool(part: ToolPart, scope: ViewerScope): ToolPart {
  const relative = (text: string) => relativeText(text, scope, part.sessionId);
  const state = part.state;
  const input = relativeRecord(state.input, relative);
  const shown = part.metadata ? { ...part, metadata: relativeRecord(part.metadata, relative) } : part;
  switch (state.status) {
    case "pending":
      // The input is still streaming: the end that may become a folder's name waits.
      return { ...shown, state: { ...state, input, raw: rewrite(state.raw, swapsOf(scope, part.sessionId), false).out } };
    case "running":
      return {
        ...shown,
        state: {
          ...state,
          input,
          ...(state.title !== undefined ? { title: relative(state.title) } : {}),
          ...(state.metadata ? { metadata: relativeRecord(state.metadata, relative) } : {}),
        },
      };
    case "completed":
      return {
        ...shown,
        state: {
          ...state,
          input,
          output: relative(state.output),
          title: relative(state.title),
          metadata: relativeRecord(state.metadata, relative),
          ...(state.attachments ? { attachments: state.attachments.map((file) => fileForViewer(file, relative)) } : {}),
        },
      };
    case "error":
      return {
        ...shown,
        state: { ...state, input, error: relative(state.error), ...(state.metadata ? { metadata: relativeRecord(state.metadata, relative) } : {}) },
      };
  }
}

function apiErrorForViewer(error: APIError, relative: (text: string) => string): APIError {
  const { responseHeaders: _headers, responseBody: _body, ...rest } = error;
  return { ...rest, message: relative(rest.message) };
}

/**
 * An error as a viewer sees it: what the server did not expect becomes a generic
 * sentence; provider headers and bodies stay on the server; paths in a message are
 * relative (with a scope).
 */
export function errorForViewer(error: MessageError, scope?: ViewerScope, sessionId = ""): MessageError {
  const relative = (text: string) => (scope ? relativeText(text, scope, sessionId) : text);
  switch (error.name) {
    case "UnknownError":
      return { name: "UnknownError", message: UNEXPECTED_ERROR };
    case "APIError":
      return apiErrorForViewer(error, relative);
    case "ContextOverflowError": {
      const { responseBody: _body, ...rest } = error;
      return { ...rest, message: relative(rest.message) };
    }
    case "OutputLengthError":
      return error.message === undefined ? error : { ...error, message: relative(error.message) };
    default:
      return { ...error, message: relative(error.message) };
  }
}

const EMAIL = /^\s*([^\s@]+)@[^\s@]+\.[^\s@]+\s*$/;

/** A member's name as a viewer sees it: a name that is an email address shows only what comes before the @. */
export function nameForViewer(name: string): string {
  return EMAIL.exec(name)?.[1] ?? name;
}

/**
 * A message as a viewer sees it: its author by name only (never an email address or a
 * user id), the directory it ran in relative to the project, paths in its texts relative,
 * its turn's files only those the read rules show, unexpected errors generic.
 */
export function messageForViewer(info: Message, scope: ViewerScope): Message {
  const relative = (text: string) => relativeText(text, scope, info.sessionId);
  if (info.role === "user") {
    const { author, summary, system, ...rest } = info;
    return {
      ...rest,
      ...(author ? { author: { id: "", name: nameForViewer(author.name) } } : {}),
      ...(system !== undefined ? { system: relative(system) } : {}),
      ...(summary
        ? {
            summary: {
              ...(summary.title !== undefined ? { title: relative(summary.title) } : {}),
              ...(summary.body !== undefined ? { body: relative(summary.body) } : {}),
              diffs: visibleDiffs(summary.diffs, scope),
            },
          }
        : {}),
    };
  }
  const cwd = path.relative(info.path.root, info.path.cwd);
  const { instructions, ...answer } = info;
  const shown = {
    ...answer,
    path: { cwd: cwd === "" || path.isAbsolute(cwd) || cwd.startsWith("..") ? "." : cwd, root: "." },
    ...(instructions ? { instructions: instructions.map((source) => instructionForViewer(source, relative)) } : {}),
  };
  return info.error ? { ...shown, error: errorForViewer(info.error, scope, info.sessionId) } : shown;
}

/**
 * An instruction source a turn used, as a viewer sees it: its name only — never its text,
 * its size or its digest (which would let a viewer confirm a guess of a private file); an
 * address without its query (it may carry a token).
 */
export function instructionForViewer(source: InstructionSource, relative: (text: string) => string): InstructionSource {
  let label = source.label;
  if (source.kind === "url") {
    try {
      const url = new URL(source.label);
      label = `${url.origin}${url.pathname}`;
    } catch (error) {
      // Recorded from the configuration as a URL: unreadable now, it shows as a placeholder.
      if (!(error instanceof TypeError)) throw error;
      label = "(an address)";
    }
  }
  return {
    kind: source.kind,
    label: relative(label),
    ...(source.cut ? { cut: true } : {}),
    ...(source.skipped !== undefined ? { skipped: relative(source.skipped) } : {}),
  };
}

/**
 * A read result as a viewer sees it: the rule files appended to it (nested rules, its
 * metadata's `loaded`) keep their text only when the read rules show every one of them;
 * otherwise only their names are left.
 */
function nestedRulesForViewer(part: ToolPart, scope: ViewerScope): ToolPart {
  const state = part.state;
  if (part.tool !== "read" || state.status !== "completed") return part;
  const loaded = Array.isArray(state.metadata.loaded) ? state.metadata.loaded.filter((label): label is string => typeof label === "string") : [];
  if (loaded.length === 0 || loaded.every((label) => visibleFile(label, scope))) return part;
  const at = state.output.lastIndexOf(`\n\n${REMINDER_OPEN}`);
  const names = `Instructions from: ${loaded.join(", ")} (not shared: the project keeps these files private)`;
  const output = `${at === -1 ? state.output : state.output.slice(0, at)}\n\n${REMINDER_OPEN}${names}\n</system-reminder>`;
  return { ...part, state: { ...state, output } };
}

const REMINDER_OPEN = "<system-reminder>\n";

/** The files of a turn's diff as a viewer sees them (those the read rules show). */
export function diffForViewer(diffs: FileDiff[], scope: ViewerScope): FileDiff[] {
  return visibleDiffs(diffs, scope);
}

/** A page of messages as a viewer sees it: each message and part as above, unreadable rows without their error. */
export function pageForViewer(page: MessagePage, scope: ViewerScope): MessagePage {
  return {
    ...page,
    messages: page.messages.map((m) => ({ info: messageForViewer(m.info, scope), parts: m.parts.map((p) => partForViewer(p, scope)) })),
    corrupt: page.corrupt.map((row) => ({ ...row, error: "this row could not be read" })),
  };
}

export { relativeText } from "./paths";
