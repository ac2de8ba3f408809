import { Spending } from "../spending";
import { modelsOf } from "../provider/team";
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { Session as SessionRow } from "../db/generated/client";
import { type Agent, type Agents, isSubagent } from "../agent/agent";
import { FrontmatterError, splitFrontmatter } from "../agent/frontmatter";
import { sessionAgents } from "../agent/project";
import { readMarkdown } from "../agent/repo-files";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { errorCode } from "../errno";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import { refuseNul } from "../nul";
import type { Context, Services } from "../services";
import { isInside } from "../inside";
import * as Publish from "../workspace/publish";
import { sessionRow } from "../session/access";
import type { Info } from "../session/info";
import { intoWorkspace } from "../session/legacy";
import { ModelRef, type UserMessage } from "../session/message";
import * as Prompt from "../session/prompt";
import * as Revert from "../session/revert";
import { sessionFromRow } from "../session/rows";
import { share } from "../session/share";
import { runCommands } from "../session/shell";
import * as Store from "../session/store";
import { CommandDefinition, CommandName, MAX_TEMPLATE_CHARS, ModelString } from "./config";
import { expand, fileReferences, hints, shellCommands, withOutputs } from "./template";

/**
 * Prompt commands (`/name arguments` in the composer), as OpenCode has them: a template
 * expanded with the arguments (template.ts), its `` !`cmd` `` run as bash calls of the
 * session (server/session/shell.ts: asked, sandboxed, shown), its `@path` files included
 * like mentions, then prompted with the command's agent and model — as a subtask when its
 * agent is a subagent. Where they come from, later ones replacing earlier ones of the
 * same name:
 *
 *   built-in (/init, /review, /compact, /share, /undo, /redo)
 *     → the server configuration (`command` in parley.config.json)
 *     → the team's (written by owners and admins)
 *     → the repository's (`.opencode/command/**\/*.md`, `.opencode/commands/**\/*.md`)
 */

export const COMMAND_FOLDERS = [".opencode/command", ".opencode/commands"] as const;
/** The largest part of a diff /review puts in its prompt. */
export const MAX_REVIEW_DIFF_CHARS = 60_000;

/** The frontmatter of a command file (other keys are accepted and ignored, as OpenCode does). */
const CommandFile = z.object({
  description: z.string().max(500).optional(),
  agent: z.string().min(1).max(100).optional(),
  model: ModelString.optional(),
  subtask: z.boolean().optional(),
});

export type Source = "built-in" | "config" | "team" | "project";
type Action = "compact" | "share" | "undo" | "redo";

export interface Command {
  name: string;
  description?: string;
  /** Absent for the built-in actions (/compact, /share, /undo, /redo). */
  template?: string;
  agent?: string;
  model?: string;
  subtask?: boolean;
  source: Source;
  /** The arguments it takes, for the `/` menu: `$1`, `$2`…, `$ARGUMENTS`. */
  hints: string[];
  /** Where a repository's command is written (relative to the working tree). */
  path?: string;
  action?: Action;
  /** /review: the session's changes are added to its prompt. */
  review?: boolean;
}

const INIT = `Please analyze this codebase and create an AGENTS.md file in the project's root folder, containing:
1. The commands to build, lint and test — and to run a single test.
2. Code style guidelines: imports, formatting, types, naming conventions, error handling, and so on.

The file is what agents working in this repository read first: keep it about 20 lines long.
If there are Cursor rules (in .cursor/rules/ or .cursorrules) or Copilot rules (in .github/copilot-instructions.md), include them.
If there is already an AGENTS.md, improve it.

$ARGUMENTS`;

const REVIEW = `Review the changes of this session: the diff below, against the branch the session started from.
Point out bugs, risky changes, missing tests and unclear code, each with its file and line; say what is good too. Do not change any file.

$ARGUMENTS`;

const BUILT_IN: Command[] = [
  { name: "init", description: "Create or update AGENTS.md for this project", template: INIT, source: "built-in", hints: hints(INIT) },
  { name: "review", description: "Review the session's changes", template: REVIEW, source: "built-in", hints: hints(REVIEW), review: true },
  { name: "compact", description: "Summarize the session to free its context", source: "built-in", hints: [], action: "compact" },
  { name: "share", description: "Share the session (a read-only link)", source: "built-in", hints: [], action: "share" },
  { name: "undo", description: "Undo the last message and its changes (its text goes back to the composer)", source: "built-in", hints: [], action: "undo" },
  { name: "redo", description: "Redo what /undo undid", source: "built-in", hints: [], action: "redo" },
];

function fromDefinition(name: string, source: Source, definition: CommandDefinition): Command {
  return {
    name,
    template: definition.template,
    source,
    hints: hints(definition.template),
    ...(definition.description ? { description: definition.description } : {}),
    ...(definition.agent ? { agent: definition.agent } : {}),
    ...(definition.model ? { model: definition.model } : {}),
    ...(definition.subtask !== undefined ? { subtask: definition.subtask } : {}),
  };
}

/** The commands of a session's working tree: each file's frontmatter and body (a file that cannot be read or parsed is named in `problems`). */
async function repositoryCommands(directory: string): Promise<{ commands: Command[]; problems: string[] }> {
  const { files, problems } = await readMarkdown(directory, COMMAND_FOLDERS, true);
  const commands: Command[] = [];
  for (const file of files) {
    try {
      const { data, body } = splitFrontmatter(file.text);
      const front = CommandFile.safeParse(data);
      const name = CommandName.safeParse(file.name);
      if (!front.success) problems.push(`${file.path}: ${front.error.issues.map((i) => `${i.path.join(".") || "frontmatter"}: ${i.message}`).join("; ")}`);
      else if (!name.success) problems.push(`${file.path}: "${file.name}" is not a command name`);
      else if (!body) problems.push(`${file.path}: the command has no template (the file's body is empty)`);
      else commands.push({ ...fromDefinition(name.data, "project", { ...front.data, template: body.slice(0, MAX_TEMPLATE_CHARS) }), path: file.path });
    } catch (error) {
      if (!(error instanceof FrontmatterError)) throw error;
      problems.push(`${file.path}: ${error.message}`);
    }
  }
  return { commands, problems };
}

async function teamCommands(db: Services["db"], teamId: string): Promise<Command[]> {
  const rows = await db.teamCommand.findMany({ where: { teamId }, orderBy: { name: "asc" } });
  return rows.map((row) =>
    fromDefinition(row.name, "team", {
      template: row.template,
      ...(row.description ? { description: row.description } : {}),
      ...(row.agent ? { agent: row.agent } : {}),
      ...(row.model ? { model: row.model } : {}),
      ...(row.subtask !== null ? { subtask: row.subtask } : {}),
    }),
  );
}

/** The working tree of a session (made first when it has a workspace). */
async function treeOf(ctx: Context, row: SessionRow): Promise<string> {
  return row.workspaceId ? (await ctx.workspaces.ready(row.workspaceId)).directory : row.directory;
}

/** Every command of a session, by name, later sources replacing earlier ones. */
async function commandsOf(ctx: Context, row: SessionRow): Promise<{ commands: Map<string, Command>; problems: string[] }> {
  const byName = new Map<string, Command>();
  for (const command of BUILT_IN) byName.set(command.name, command);
  for (const [name, definition] of Object.entries(ctx.settings.commands ?? {})) byName.set(name, fromDefinition(name, "config", definition));
  for (const command of await teamCommands(ctx.db, row.teamId)) byName.set(command.name, command);
  const { commands, problems } = await repositoryCommands(await treeOf(ctx, row));
  for (const command of commands) byName.set(command.name, command);
  return { commands: byName, problems };
}

export const ListInput = z.object({ sessionId: Id.schema("session") });

export interface Listed {
  commands: Array<Pick<Command, "name" | "description" | "hints" | "source" | "agent" | "path">>;
  /** Files of the repository that were left out, and why. */
  problems: string[];
}

/** The commands a member can run in a session, for the `/` menu: names, descriptions, argument hints and where each comes from. */
export const list = fn(ListInput, async (ctx: Context, { sessionId }): Promise<Listed> => {
  const row = await sessionRow(ctx, sessionId);
  const { commands, problems } = await commandsOf(ctx, row);
  return {
    commands: [...commands.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((c) => ({
        name: c.name,
        hints: c.hints,
        source: c.source,
        ...(c.description ? { description: c.description } : {}),
        ...(c.agent ? { agent: c.agent } : {}),
        ...(c.path ? { path: c.path } : {}),
      })),
    problems,
  };
});

export const RunInput = z.object({
  sessionId: Id.schema("session"),
  /** Its name, without the slash. */
  command: CommandName,
  arguments: refuseNul(z.string().max(Prompt.MAX_PROMPT_CHARS), "the arguments").default(""),
  /** The agent and model the composer has chosen (the command's own come first). */
  agent: refuseNul(z.string().min(1).max(100), "an agent name").optional(),
  model: ModelRef.optional(),
});
export type RunInput = z.input<typeof RunInput>;

export type RunResult =
  /** A prompt was sent (the command's, expanded). */
  | { type: "prompt"; message: UserMessage }
  /** /compact: the compaction request. */
  | { type: "compact"; message: UserMessage }
  /** /share: the session with its link. */
  | { type: "share"; session: Info }
  /** /undo: the session reverted to before its last message, whose text goes back to the composer. */
  | { type: "undo"; session: Info; text: string }
  /** /redo: the revert undone (one message at a time). */
  | { type: "redo"; session: Info };

/** `/name arguments`: a built-in action, or the command's template expanded and prompted. */
export const run = fn(RunInput, async (ctx: Context, input): Promise<RunResult> => {
  const row = await intoWorkspace(ctx, await sessionRow(ctx, input.sessionId));
  const { commands } = await commandsOf(ctx, row);
  const command = commands.get(input.command);
  if (!command) throw new ParleyError("NOT_FOUND", `There is no command /${input.command}.`);
  switch (command.action) {
    case "compact":
      return { type: "compact", message: await Prompt.compact(ctx, { sessionId: row.id }) };
    case "share":
      return { type: "share", session: await share(ctx, row.id) };
    case "undo":
      return undo(ctx, row);
    case "redo":
      return redo(ctx, row);
    case undefined:
      return { type: "prompt", message: await prompt(ctx, row, command, input) };
  }
});

/** The turn's agent: the command's, else the composer's, else the session's. A command naming an agent the session lacks is refused. */
function agentFor(agents: Agents, command: Command, input: z.output<typeof RunInput>, session: { agent?: string }): Agent {
  if (command.agent) {
    const agent = agents.find(command.agent);
    if (!agent) throw ParleyError.invalid(`/${command.name} runs with the agent "${command.agent}", which this session does not have`);
    return agent;
  }
  return agents.choose(input.agent ?? session.agent);
}

async function modelFor(ctx: Context, command: Command, input: z.output<typeof RunInput>, session: { model?: ModelRef }, agent: string): Promise<ModelRef> {
  if (command.model) {
    const [providerId = "", ...rest] = command.model.split("/");
    return { providerId, modelId: rest.join("/") };
  }
  if (input.model) return input.model;
  // The team's model for the command's agent; else the session's; else the team's default.
  const models = await modelsOf(ctx, ctx.actor.teamId);
  return models.agentModel?.(agent) ?? session.model ?? models.default();
}

async function prompt(ctx: Context, row: SessionRow, command: Command, input: z.output<typeof RunInput>): Promise<UserMessage> {
  const session = sessionFromRow(row);
  const { agents } = await sessionAgents(ctx, row);
  const agent = agentFor(agents, command, input, session);
  await Spending.assertWithin(ctx, session.teamId, row.authorId);
  const model = await modelFor(ctx, command, input, session, agent.name);
  let text = expand(command.template ?? "", input.arguments);
  if (command.review) text = `${text}\n\n${await reviewDiff(ctx, row)}`;
  // The files are those the template and the arguments name, not those a command's output names.
  const files = await existingFiles(await treeOf(ctx, row), fileReferences(text));
  const shells = shellCommands(text);
  if (shells.length > 0) {
    const ran = await runCommands(ctx, row, { commands: shells, agent, agents, model, note: `The user ran /${command.name}: its commands and their output follow.` });
    const failed = ran.parts.find((p) => p.state.status === "error");
    if (failed?.state.status === "error") throw new ParleyError("INVALID", `/${command.name} was not sent: ${failed.state.error}`, { details: { messageId: ran.message.id } });
    text = withOutputs(text, ran.outputs);
  }
  text = text.slice(0, Prompt.MAX_PROMPT_CHARS);
  // A command of a subagent runs as a subtask (unless `subtask: false`), and so does one with `subtask: true` whose agent can be one; its files are not passed on.
  const subtask = (agent.mode === "subagent" && command.subtask !== false) || (command.subtask === true && isSubagent(agent));
  if (subtask) {
    return Prompt.prompt(ctx, { sessionId: row.id, parts: [{ type: "text", text: `@${agent.name} ${text}` }], model, ...(input.agent ? { agent: input.agent } : {}) });
  }
  return Prompt.prompt(ctx, { sessionId: row.id, parts: [{ type: "text", text }, ...files.map((file) => ({ type: "mention" as const, path: file, strict: true as const }))], agent: agent.name, model });
}

/** The `@path` references that name something in the working tree (like OpenCode, a name that is not a file is left as text). */
async function existingFiles(tree: string, references: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const reference of references) {
    // Anything outside the tree is left to the mention's own checks (it refuses it clearly).
    const absolute = path.resolve(tree, reference);
    if (!isInside(tree, absolute) || path.isAbsolute(reference)) {
      found.push(reference);
      continue;
    }
    try {
      const stat = await fs.lstat(absolute);
      if (!stat.isDirectory()) found.push(reference);
    } catch (error) {
      const code = errorCode(error);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
    }
  }
  return found;
}

/** /review: the session's changes against its base branch, as a diff for the prompt. */
async function reviewDiff(ctx: Context, row: SessionRow): Promise<string> {
  if (!row.workspaceId) throw ParleyError.invalid("/review needs a session with a workspace");
  const diff = await Publish.diff(ctx, { sessionId: row.id });
  if (!diff.files.length) return "(The session has not changed any file.)";
  const files = diff.files.map((f) => `${f.status} ${f.file} (+${f.additions} -${f.deletions})`).join("\n");
  const cut = diff.text.length > MAX_REVIEW_DIFF_CHARS || diff.truncated;
  return `Changed files:\n${files}\n\n\`\`\`diff\n${diff.text.slice(0, MAX_REVIEW_DIFF_CHARS)}\n\`\`\`${cut ? "\n(The diff is cut here: read the files for the rest.)" : ""}`;
}

/** The text a member wrote in a message (what /undo puts back in the composer). */
function typed(parts: Array<{ type: string; text?: string; synthetic?: boolean }>): string {
  return parts.flatMap((p) => (p.type === "text" && !p.synthetic && p.text !== undefined ? [p.text] : [])).join("\n");
}

/** The user messages a member wrote (not compaction requests), oldest first. */
async function userMessages(ctx: Context, row: SessionRow) {
  const history = await Store.history(ctx.db, row.id);
  return history.filter((m) => m.info.role === "user" && !m.parts.some((p) => p.type === "compaction"));
}

/** /undo: revert to before the last message still shown (before the current revert point), its text back to the composer. */
async function undo(ctx: Context, row: SessionRow): Promise<RunResult> {
  const revertedAt = sessionFromRow(row).revert?.messageId;
  const target = (await userMessages(ctx, row)).filter((m) => revertedAt === undefined || m.info.id < revertedAt).at(-1);
  if (!target) throw ParleyError.invalid("there is nothing to undo");
  const session = await Revert.revert(ctx, { sessionId: row.id, messageId: target.info.id });
  return { type: "undo", session, text: typed(target.parts) };
}

/** /redo: the message after the revert point shown again (all of them when it was the last). */
async function redo(ctx: Context, row: SessionRow): Promise<RunResult> {
  const revertedAt = sessionFromRow(row).revert?.messageId;
  if (revertedAt === undefined) throw ParleyError.invalid("there is nothing to redo");
  const next = (await userMessages(ctx, row)).find((m) => m.info.id > revertedAt);
  const session = next ? await Revert.revert(ctx, { sessionId: row.id, messageId: next.info.id }) : await Revert.unrevert(ctx, { sessionId: row.id });
  return { type: "redo", session };
}

// Team commands: owners and admins write them, every member reads them.

export const TeamSetInput = CommandDefinition.extend({ name: CommandName });
export type TeamSetInput = z.input<typeof TeamSetInput>;

export interface TeamCommand extends CommandDefinition {
  name: string;
  updatedAt: number;
}

function teamCommand(row: { name: string; template: string; description: string | null; agent: string | null; model: string | null; subtask: boolean | null; updatedAt: Date }): TeamCommand {
  return {
    name: row.name,
    template: row.template,
    updatedAt: row.updatedAt.getTime(),
    ...(row.description ? { description: row.description } : {}),
    ...(row.agent ? { agent: row.agent } : {}),
    ...(row.model ? { model: row.model } : {}),
    ...(row.subtask !== null ? { subtask: row.subtask } : {}),
  };
}

/** The team's commands (any member). */
export async function teamList(ctx: Context): Promise<TeamCommand[]> {
  await requireRole(ctx, [...ADMIN_ROLES, "member"], "see the team's commands");
  const rows = await ctx.db.teamCommand.findMany({ where: { teamId: ctx.actor.teamId }, orderBy: { name: "asc" } });
  return rows.map(teamCommand);
}

/** Creates or replaces a team command (owners and admins). */
export const teamSet = fn(TeamSetInput, async (ctx: Context, input): Promise<TeamCommand> => {
  await requireRole(ctx, ADMIN_ROLES, "write the team's commands");
  const now = new Date(ctx.clock.now());
  const data = {
    template: input.template,
    description: input.description ?? null,
    agent: input.agent ?? null,
    model: input.model ?? null,
    subtask: input.subtask ?? null,
    updatedAt: now,
    updatedById: ctx.actor.userId,
  };
  const row = await ctx.db.teamCommand.upsert({
    where: { teamId_name: { teamId: ctx.actor.teamId, name: input.name } },
    create: { id: Id.ascending("command"), teamId: ctx.actor.teamId, name: input.name, createdAt: now, ...data },
    update: data,
  });
  return teamCommand(row);
});

export const TeamRemoveInput = z.object({ name: CommandName });

/** Removes a team command (owners and admins); NOT_FOUND when there is none of that name. */
export const teamRemove = fn(TeamRemoveInput, async (ctx: Context, { name }): Promise<void> => {
  await requireRole(ctx, ADMIN_ROLES, "remove the team's commands");
  const { count } = await ctx.db.teamCommand.deleteMany({ where: { teamId: ctx.actor.teamId, name } });
  if (count === 0) throw ParleyError.notFound("Team command", name);
});
