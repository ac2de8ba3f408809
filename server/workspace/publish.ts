import { modelsOf } from "../provider/team";
import { stat } from "node:fs/promises";
import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import { refuseNul } from "../nul";
import { DEFAULT_GIT_USER, credentialFor, remotePolicy } from "../project/project";
import { allowedProtocols, parseRemote } from "../project/remote";
import type { Context } from "../services";
import { projectRow, sessionRow } from "../session/access";
import * as LLM from "../session/llm";
import { requireAuthorOrAdmin } from "../session/ownership";
import { start, unanswered } from "../session/loop";
import { Runners } from "../session/runner";
import type { Diff } from "./repo";
import { DEFAULT_MAX_WORKSPACES } from "./scope";
import { projectFolder, storeOf } from "./workspace";
import { logger } from "../log";

const log = logger("workspace");

/**
 * Getting a session's work out of its workspace (SPEC §15): its diff against its base,
 * commit (a message the small model drafts, the member as author), push with the
 * project's credential (then a pull-request link), merge into the default branch of a
 * project without a remote, update from the base branch, and a patch to download.
 * Anything that changes the branch or the files waits for an idle session (BUSY while the
 * agent works) and is the session author's or an admin's to do; a conflict changes
 * nothing and names the files.
 */

export const SessionInput = z.object({ sessionId: Id.schema("session") });

export interface WorkspaceStatus {
  sessionId: string;
  workspaceId: string;
  state: "pending" | "ready" | "failed" | "removed";
  error?: string;
  branch: string;
  baseBranch: string;
  baseCommit?: string;
  /** The branch's last commit (the base until something is committed). */
  head?: string;
  /** Commits on the branch since the base. */
  commits: number;
  /** The working tree differs from the branch's last commit. */
  uncommitted: boolean;
  /** Everything the session changed since the base (committed or not). */
  changes: { files: number; additions: number; deletions: number };
  /** Where the branch was last pushed, and whether that is its last commit. */
  pushedCommit?: string;
  pushed: boolean;
  /** Merged into the project's default branch (projects without a remote). */
  merged: boolean;
  /** The project has a remote: push (not merge) gets the work out. */
  remote: boolean;
  /** The "open a pull request" link of a pushed branch, when the project has a template. */
  pullRequestUrl?: string;
  /**
   * Whether `uncommitted`, `changes` and `commits` were read from the files now: not while
   * the agent works (its files are not read under it), then they are as last read.
   */
  live: boolean;
}

/** The session's workspace row and its project (NOT_FOUND for a session made before workspaces). */
async function workspaceOf(ctx: Context, sessionId: string) {
  const row = await sessionRow(ctx, sessionId);
  if (!row.workspaceId) throw new ParleyError("NOT_FOUND", "This session was made before workspaces existed: it works in the project's folder and has no branch of its own.");
  const workspace = await ctx.db.workspace.findUnique({ where: { id: row.workspaceId } });
  if (!workspace || workspace.teamId !== ctx.actor.teamId) throw ParleyError.notFound("workspace", row.workspaceId);
  const project = await projectRow(ctx, workspace.projectId);
  return { session: row, workspace, project };
}

/** The workspace made (its tree exists) and its store. */
async function readyOf(ctx: Context, sessionId: string) {
  const found = await workspaceOf(ctx, sessionId);
  if (found.workspace.state === "removed") throw ParleyError.invalid("This session's workspace was removed.");
  await ctx.workspaces.ready(found.workspace.id);
  const workspace = await ctx.db.workspace.findUniqueOrThrow({ where: { id: found.workspace.id } });
  if (!workspace.baseCommit || !workspace.headCommit) throw new ParleyError("INTERNAL", "the workspace is ready without a base");
  return { ...found, workspace, base: workspace.baseCommit, head: workspace.headCommit, store: storeOf(ctx.settings.dataDir, workspace.projectId) };
}

type Ready = Awaited<ReturnType<typeof readyOf>>;

/** The tree of the working tree's files now (written into the workspace's own objects in the store). */
function treeNow(ctx: Context, ready: Ready): Promise<string> {
  return ctx.workspaces.repo.workTreeTree(ready.store, ready.workspace.directory, ready.workspace.id, ready.head);
}

/** The member acting, as a commit's author. */
async function authorOf(ctx: Context): Promise<{ name: string; email: string }> {
  const user = await ctx.db.user.findUniqueOrThrow({ where: { id: ctx.actor.userId }, select: { name: true, email: true } });
  return { name: user.name || user.email, email: user.email };
}

function prLink(template: string | null, branch: string): string | undefined {
  return template ? template.replaceAll("{branch}", encodeURIComponent(branch).replaceAll("%2F", "/")) : undefined;
}

async function statusOf(ctx: Context, found: Awaited<ReturnType<typeof workspaceOf>>): Promise<WorkspaceStatus> {
  const { session, workspace, project } = found;
  const state = z.enum(["pending", "ready", "failed", "removed"]).catch("failed").parse(workspace.state);
  const status: WorkspaceStatus = {
    sessionId: session.id,
    workspaceId: workspace.id,
    state,
    ...(workspace.error ? { error: workspace.error } : {}),
    branch: workspace.branch,
    baseBranch: workspace.baseBranch,
    ...(workspace.baseCommit ? { baseCommit: workspace.baseCommit } : {}),
    ...(workspace.headCommit ? { head: workspace.headCommit } : {}),
    commits: 0,
    uncommitted: false,
    changes: { files: 0, additions: 0, deletions: 0 },
    ...(workspace.pushedCommit ? { pushedCommit: workspace.pushedCommit } : {}),
    pushed: workspace.pushedCommit !== null && workspace.pushedCommit === workspace.headCommit && workspace.headCommit !== workspace.baseCommit,
    merged: workspace.mergedCommit !== null && workspace.mergedCommit === workspace.headCommit,
    remote: project.gitUrl !== null,
    live: false,
  };
  if (status.pushed) {
    const link = prLink(project.pullRequestUrl, workspace.branch);
    if (link) status.pullRequestUrl = link;
  }
  if (state !== "ready" || !workspace.baseCommit || !workspace.headCommit) return status;
  const store = storeOf(ctx.settings.dataDir, workspace.projectId);
  status.commits = await commitsBetween(ctx, store, workspace.baseCommit, workspace.headCommit);
  // The files are read by the server only while no command of the session runs (one could swap a folder for a link meanwhile).
  if (await Runners.busy(ctx.lock, ctx.runners, await rootOf(ctx, session.id))) return { ...status, uncommitted: workspace.dirty };
  status.live = true;
  const repo = ctx.workspaces.repo;
  const tree = await repo.workTreeTree(store, workspace.directory, workspace.id, workspace.headCommit);
  const all = await repo.diff(store, workspace.baseCommit, tree, { maxBytes: 0, workspace: workspace.id });
  status.uncommitted = tree !== (await repo.treeOf(store, workspace.headCommit));
  status.changes = { files: all.files.length, additions: sum(all.files, "additions"), deletions: sum(all.files, "deletions") };
  return status;
}

function sum(files: Diff["files"], key: "additions" | "deletions"): number {
  return files.reduce((total, file) => total + file[key], 0);
}

async function commitsBetween(ctx: Context, store: string, base: string, head: string): Promise<number> {
  if (base === head) return 0;
  const out = await ctx.workspaces.git.run(["rev-list", "--count", `${base}..${head}`], { cwd: store, protocols: "", env: { GIT_DIR: store } }, "Counting commits");
  return Number.parseInt(out.trim(), 10) || 0;
}

/**
 * Statuses read from the files in the last STATUS_MS, by workspace, and the readings under
 * way: members looking at a session at once (or a page asking again and again) cost one
 * reading of its files, not one each.
 */
const STATUS_MS = 2_000;
const statuses = new Map<string, { at: number; value: Promise<WorkspaceStatus> }>();

/** What the branch or the files now are changed: the next status reads them again. */
function forget(sessionId: string): void {
  for (const key of [...statuses.keys()]) if (key.startsWith(`${sessionId}:`)) statuses.delete(key);
}

/** Where the session's work stands: its branch, commits, uncommitted changes, pushed and merged. */
export const status = fn(SessionInput, async (ctx: Context, { sessionId }): Promise<WorkspaceStatus> => {
  const found = await workspaceOf(ctx, sessionId);
  const key = `${sessionId}:${found.workspace.updatedAt.getTime()}`;
  const kept = statuses.get(key);
  if (kept && Date.now() - kept.at < STATUS_MS) return kept.value;
  const value = statusOf(ctx, found);
  statuses.set(key, { at: Date.now(), value });
  // A failed reading is not kept: the next call reads again (and reports its own error).
  value.catch(() => statuses.delete(key));
  for (const [other, entry] of statuses) if (Date.now() - entry.at >= STATUS_MS) statuses.delete(other);
  return value;
});

/** The largest diff text answered (the file list is always whole). */
export const MAX_DIFF_BYTES = 512 * 1024;

/** Everything the session changed since its base — committed or not — as a patch and per file (once the agent is idle). */
export const diff = fn(SessionInput, async (ctx: Context, { sessionId }): Promise<Diff> => {
  await requireIdle(ctx, sessionId);
  const ready = await readyOf(ctx, sessionId);
  const tree = await treeNow(ctx, ready);
  return ctx.workspaces.repo.diff(ready.store, ready.base, tree, { maxBytes: MAX_DIFF_BYTES, workspace: ready.workspace.id });
});

/** What the small model reads of a diff to draft a message. */
const DRAFT_INPUT_BYTES = 16 * 1024;
const DRAFT_TIMEOUT_MS = 20_000;
export const COMMIT_PROMPT = [
  "Write a git commit message for the changes below.",
  "First line: a summary in the imperative mood, at most 72 characters. Then, if useful, a blank line and a few short lines on why.",
  "Answer with the message only: no quotes, no code fences, no preamble.",
].join("\n");

/** A commit message for what the session has not committed yet, drafted by the small model (a plain summary when it cannot answer). */
export const draftMessage = fn(SessionInput, async (ctx: Context, { sessionId }): Promise<{ message: string }> => {
  await requireIdle(ctx, sessionId);
  const ready = await readyOf(ctx, sessionId);
  const tree = await treeNow(ctx, ready);
  const changes = await ctx.workspaces.repo.diff(ready.store, ready.head, tree, { maxBytes: DRAFT_INPUT_BYTES, workspace: ready.workspace.id });
  if (changes.files.length === 0) throw ParleyError.invalid("Nothing to commit: the working tree is the branch's last commit.");
  const fallback = plainMessage(changes.files);
  const stat = changes.files.map((f) => `${f.status} ${f.file} (+${f.additions} -${f.deletions})`).join("\n");
  try {
    const models = await modelsOf(ctx, ctx.actor.teamId);
    const model = models.small ? models.small() : models.resolve(models.default());
    const answer = await LLM.text({ model, system: COMMIT_PROMPT, messages: [{ role: "user", content: `${stat}\n\n${changes.text}` }], abortSignal: AbortSignal.timeout(DRAFT_TIMEOUT_MS) });
    const message = cleanMessage(answer);
    return { message: message || fallback };
  } catch (error) {
    log.error(`drafting a commit message for ${sessionId} failed: ${error instanceof Error ? error.message : String(error)}`);
    return { message: fallback };
  }
});

function plainMessage(files: Diff["files"]): string {
  const [first] = files;
  if (files.length === 1 && first) return `${first.status === "added" ? "Add" : first.status === "deleted" ? "Remove" : "Update"} ${first.file}`;
  return `Update ${files.length} files`;
}

/** A model's answer as a message: fences and quotes gone, lines trimmed, at most 4,000 characters. */
function cleanMessage(answer: string): string {
  const text = answer
    .replace(/^```[a-z]*\n?|\n?```$/g, "")
    .trim()
    .replace(/^["'`]+|["'`]+$/g, "")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .trim();
  return text.slice(0, 4000);
}

function busyError(sessionId: string): ParleyError {
  return new ParleyError("BUSY", "The agent is working in this workspace: wait until it is idle, or stop it.", { details: { sessionId } });
}

/** BUSY while a runner of the session's tree works (its files are read only when no command runs). */
async function requireIdle(ctx: Context, sessionId: string): Promise<void> {
  if (await Runners.busy(ctx.lock, ctx.runners, await rootOf(ctx, sessionId))) throw busyError(sessionId);
}

/** Runs `work` while the session is idle and no prompt can start (its run lock held): BUSY otherwise. */
async function whileIdle<T>(ctx: Context, sessionId: string, work: () => Promise<T>): Promise<T> {
  if (await Runners.busy(ctx.lock, ctx.runners, sessionId)) throw busyError(sessionId);
  if (!(await ctx.lock.tryAcquire(sessionId))) throw busyError(sessionId);
  try {
    return await work();
  } finally {
    await ctx.lock.release(sessionId);
    forget(sessionId);
    // A prompt stored meanwhile found the lock taken and started no turn: it is answered now.
    if (await unanswered(ctx, sessionId)) await start(ctx, ctx.actor.teamId, sessionId);
  }
}

/** The root session of a tree (its workspace's owner): children share it, and a runner of any of them uses it. */
async function rootOf(ctx: Context, sessionId: string): Promise<string> {
  let id = sessionId;
  for (let depth = 0; depth < 100; depth++) {
    const row = await ctx.db.session.findUnique({ where: { id }, select: { parentId: true } });
    if (!row?.parentId) return id;
    id = row.parentId;
  }
  return id;
}

export const CommitInput = z.object({
  sessionId: Id.schema("session"),
  message: refuseNul(z.string().trim().min(1, "A commit needs a message.").max(10_000), "a commit message"),
});

/** Commits everything the working tree holds that the branch does not, the member as author. */
export const commit = fn(CommitInput, async (ctx: Context, { sessionId, message }): Promise<WorkspaceStatus> => {
  const found = await workspaceOf(ctx, sessionId);
  await requireAuthorOrAdmin(ctx, found.session, "commit in");
  const root = await rootOf(ctx, sessionId);
  await whileIdle(ctx, root, async () => {
    const ready = await readyOf(ctx, sessionId);
    const repo = ctx.workspaces.repo;
    const tree = await treeNow(ctx, ready);
    const tip = await repo.commit(ready.store, { branch: ready.workspace.branch, expectedTip: ready.head, tree, message, author: await authorOf(ctx), workspace: ready.workspace.id });
    await ctx.db.workspace.update({ where: { id: ready.workspace.id }, data: { headCommit: tip, dirty: false } });
    await syncClone(ctx, ready, tip);
  });
  return statusOf(ctx, await workspaceOf(ctx, sessionId));
});

/** The agent's own clone follows the branch (its log and status agree); a failure there is logged, the branch stands. */
async function syncClone(ctx: Context, ready: Ready, tip: string): Promise<void> {
  try {
    await ctx.workspaces.repo.syncWorkTree(ready.store, ready.workspace.directory, { branch: ready.workspace.branch, tip, workspace: ready.workspace.id, ...ownerOf(ctx) });
  } catch (error) {
    log.error(`the working tree's own git of ${ready.workspace.id} was not updated: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function ownerOf(ctx: Context): { owner?: { uid: number; gid: number } } {
  const owner = ctx.sandbox.owner;
  return owner ? { owner } : {};
}

/** Pushes the session's branch (its last commit) to the project's remote with the project's credential; the pull-request link when there is a template. */
export const push = fn(SessionInput, async (ctx: Context, { sessionId }): Promise<WorkspaceStatus> => {
  const found = await workspaceOf(ctx, sessionId);
  await requireAuthorOrAdmin(ctx, found.session, "push from");
  const ready = await readyOf(ctx, sessionId);
  const { project } = ready;
  if (!project.gitUrl) throw ParleyError.invalid(`${project.name} has no remote: merge the session into ${project.defaultBranch ?? "its default branch"} instead.`);
  if (ready.head === ready.base) throw ParleyError.invalid("Nothing to push: commit the session's changes first.");
  const policy = remotePolicy(ctx.settings);
  const remote = parseRemote(project.gitUrl, policy);
  const credential = await credentialFor(ctx, remote, project.credential, project.gitUser ?? DEFAULT_GIT_USER);
  await ctx.workspaces.repo.push(ready.store, { url: remote.url, protocols: allowedProtocols(policy), ...(credential ? { credential } : {}), branch: ready.workspace.branch, tip: ready.head });
  await ctx.db.workspace.update({ where: { id: ready.workspace.id }, data: { pushedCommit: ready.head } });
  return statusOf(ctx, await workspaceOf(ctx, sessionId));
});

export type MergeOutcome = { kind: "merged" | "up-to-date"; status: WorkspaceStatus } | { kind: "conflict"; files: string[] };

/** Merges the session's branch into the project's default branch (projects without a remote): fast-forward or a merge commit; a conflict changes nothing. */
export const merge = fn(SessionInput, async (ctx: Context, { sessionId }): Promise<MergeOutcome> => {
  const found = await workspaceOf(ctx, sessionId);
  await requireAuthorOrAdmin(ctx, found.session, "merge from");
  const ready = await readyOf(ctx, sessionId);
  const { project } = ready;
  if (project.gitUrl) throw ParleyError.invalid(`${project.name} has a remote: push the session's branch and open a pull request instead.`);
  const target = project.defaultBranch;
  if (!target) throw ParleyError.invalid(`${project.name} has no default branch to merge into.`);
  if (ready.head === ready.base) throw ParleyError.invalid("Nothing to merge: commit the session's changes first.");
  const author = await authorOf(ctx);
  const result = await ctx.workspaces.repo.mergeInto(ready.store, project.directory, { target, tip: ready.head, author, message: `Merge ${ready.workspace.branch} into ${target}` });
  if (result.kind === "conflict") return { kind: "conflict", files: result.files };
  await ctx.db.workspace.update({ where: { id: ready.workspace.id }, data: { mergedCommit: ready.head } });
  return { kind: result.kind, status: await statusOf(ctx, await workspaceOf(ctx, sessionId)) };
});

export type UpdateOutcome = { kind: "updated" | "up-to-date"; changedFiles: string[]; status: WorkspaceStatus } | { kind: "conflict"; files: string[] };

/** Brings the base branch's new commits into the session's branch and files (uncommitted changes carried along); a conflict changes nothing. */
export const update = fn(SessionInput, async (ctx: Context, { sessionId }): Promise<UpdateOutcome> => {
  const found = await workspaceOf(ctx, sessionId);
  await requireAuthorOrAdmin(ctx, found.session, "update");
  const root = await rootOf(ctx, sessionId);
  const outcome = await whileIdle(ctx, root, async (): Promise<{ kind: "conflict"; files: string[] } | { kind: "updated" | "up-to-date"; changedFiles: string[] }> => {
    const ready = await readyOf(ctx, sessionId);
    const base = await ctx.workspaces.resolveBase(ready.project.directory, ready.workspace.baseBranch);
    const result = await ctx.workspaces.repo.updateFromBase(ready.store, {
      branch: ready.workspace.branch,
      tip: ready.head,
      base,
      workTree: await treeNow(ctx, ready),
      dir: ready.workspace.directory,
      author: await authorOf(ctx),
      workspace: ready.workspace.id,
      message: `Merge ${ready.workspace.baseBranch} into ${ready.workspace.branch}`,
      ...ownerOf(ctx),
    });
    if (result.kind !== "updated") return result.kind === "conflict" ? result : { kind: "up-to-date", changedFiles: [] };
    await ctx.db.workspace.update({ where: { id: ready.workspace.id }, data: { headCommit: result.tip, baseCommit: base } });
    await syncClone(ctx, ready, result.tip);
    return { kind: "updated", changedFiles: result.changedFiles };
  });
  if (outcome.kind === "conflict") return outcome;
  return { ...outcome, status: await statusOf(ctx, await workspaceOf(ctx, sessionId)) };
});

export const PatchInput = z.object({
  sessionId: Id.schema("session"),
  /** "series": the branch's commits since the base (`git format-patch`, for `git am`); "diff": everything since the base, committed or not, as one diff. */
  kind: z.enum(["series", "diff"]).default("series"),
});

/** The largest patch answered (a larger one is pushed or merged, not downloaded). */
export const MAX_PATCH_BYTES = 16 * 1024 * 1024;

/** A patch of the session's work, to download: a file name and its text. */
export const patch = fn(PatchInput, async (ctx: Context, { sessionId, kind }): Promise<{ filename: string; text: string }> => {
  const ready = await readyOf(ctx, sessionId);
  const name = ready.workspace.branch.replaceAll("/", "-");
  const tooLarge = () => ParleyError.invalid(`The patch is larger than ${MAX_PATCH_BYTES / 1048576} MB: push the branch (or merge it) instead of downloading it.`);
  if (kind === "diff") {
    await requireIdle(ctx, sessionId);
    const tree = await treeNow(ctx, ready);
    const all = await ctx.workspaces.repo.diff(ready.store, ready.base, tree, { maxBytes: MAX_PATCH_BYTES, workspace: ready.workspace.id });
    if (all.truncated) throw tooLarge();
    return { filename: `${name}.diff`, text: all.text };
  }
  if (ready.head === ready.base) throw ParleyError.invalid("The branch has no commits yet: commit the session's changes first, or download them as one diff.");
  const text = await ctx.workspaces.repo.formatPatch(ready.store, ready.base, ready.head);
  if (Buffer.byteLength(text) > MAX_PATCH_BYTES) throw tooLarge();
  return { filename: `${name}.patch`, text };
});

export interface ProjectUsage {
  projectId: string;
  /** The project's own folder (its files and repository), in bytes; null when it could not be measured. */
  projectBytes: number | null;
  /** Its store and every session's working tree, in bytes; null when not measured. */
  workspacesBytes: number | null;
  /** Workspaces not removed (made or waiting to be made), and the most a project may have. */
  liveWorkspaces: number;
  maxWorkspaces: number;
  /** What one workspace may hold (limits.projectDiskMb), in bytes. */
  workspaceQuotaBytes: number;
}

/** Disk use of each of the team's projects and its workspaces (owners and admins). */
export async function usage(ctx: Context): Promise<ProjectUsage[]> {
  await requireRole(ctx, ADMIN_ROLES, "see the projects' disk use");
  const projects = await ctx.db.project.findMany({ where: { teamId: ctx.actor.teamId }, select: { id: true, directory: true }, orderBy: { createdAt: "asc" } });
  const live = await ctx.db.workspace.groupBy({ by: ["projectId"], where: { teamId: ctx.actor.teamId, state: { not: "removed" } }, _count: { _all: true } });
  const counts = new Map(live.map((row) => [row.projectId, row._count._all]));
  const measure = async (directory: string): Promise<number | null> => {
    try {
      return await ctx.quota.usage(directory, { fresh: true });
    } catch (error) {
      log.error(`the disk use of ${directory} could not be measured: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  };
  const out: ProjectUsage[] = [];
  for (const project of projects) {
    const folder = projectFolder(ctx.settings.dataDir, project.id);
    const hasWorkspaces = await stat(folder).then(
      () => true,
      () => false,
    );
    out.push({
      projectId: project.id,
      projectBytes: await measure(project.directory),
      workspacesBytes: hasWorkspaces ? await measure(folder) : 0,
      liveWorkspaces: counts.get(project.id) ?? 0,
      maxWorkspaces: ctx.settings.limits?.workspacesPerProject ?? DEFAULT_MAX_WORKSPACES,
      workspaceQuotaBytes: ctx.quota.limitBytes,
    });
  }
  return out;
}
