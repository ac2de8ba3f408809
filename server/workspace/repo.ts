import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { errorCode } from "../errno";
import { ParleyError, isParleyError } from "../errors";
import type { Credential, ProjectGit, ProjectGitCall, RepositoryVariable } from "../project/git";
import { type SandboxOwner, adoptNewTree, openFolder } from "../sandbox/owner";
import { ProjectFiles } from "../snapshot/nofollow";
import { readInside } from "./read-inside";
import { knownCommit, readRef, rememberCommit } from "./refs";

/**
 * The git of session workspaces: a project's *store* (a bare repository of the server's
 * own, borrowing the project folder's objects, holding the session branches) and the
 * sessions' working trees (each a repository of its own that the agent controls fully).
 *
 * No git call here ever runs with a git directory whose configuration an agent could have
 * written: work-tree operations run with GIT_DIR = the store (its configuration is the
 * server's), GIT_WORK_TREE and GIT_INDEX_FILE given explicitly, so nothing in a working
 * tree's `.git` — filters, textconv, core.worktree, fsmonitor, hooks — is ever read, and
 * the project folder's `.git` is only read and updated with plumbing that touches no
 * working tree (its objects and refs), except the checked-out branch's files after a
 * merge, written with the store's configuration too. The only git calls in a working
 * tree's own `.git` are those that create it, before any agent has seen it.
 *
 * The store's objects are readable by every working tree of the project (their
 * alternates): what only one working tree has — its uncommitted files, read by
 * `workTreeTree` — goes into that workspace's private object folder in the store
 * (`parley-workspaces/<workspace>/objects`, never bound into a sandbox), and into the
 * store's objects only once committed.
 *
 * DB-free: paths and object ids in, results out; every git process goes through
 * `ProjectGit` (the process helper, hardened settings, the credential helper, redaction).
 */

/** A commit's author (the committer is always Parley). */
export interface Author {
  name: string;
  email: string;
}

export interface DiffFile {
  file: string;
  additions: number;
  deletions: number;
  status: "added" | "modified" | "deleted" | "type-changed";
}

export interface Diff {
  /** The patch, at most `maxBytes` of it. */
  text: string;
  truncated: boolean;
  /** Every changed file (all of them, whatever `maxBytes`); binary files count 0 lines. */
  files: DiffFile[];
}

export type UpdateResult =
  | { kind: "up-to-date"; tip: string }
  | { kind: "updated"; tip: string; newWorkTree: string; changedFiles: string[]; fastForward: boolean }
  | { kind: "conflict"; files: string[] };

export type MergeResult = { kind: "up-to-date"; target: string } | { kind: "merged"; target: string; fastForward: boolean } | { kind: "conflict"; files: string[] };

/** The empty tree (a diff from nothing). */
/** The branch a checked-out tree is on until a session takes it over: unborn, never created. */
const UNBORN_BRANCH = "parley-spare";

export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
/** The ref in the store that records the project branch's last merge from a session (`<target>` appended). */
export const MERGED_PREFIX = "refs/parley/merged/";

function assertId(value: string, what: string): void {
  if (!OBJECT_ID.test(value)) throw ParleyError.invalid(`${what} is not an object id: ${JSON.stringify(value)}`);
}

/**
 * A branch name git takes and no option can be read from (the rules of
 * `git check-ref-format --branch`, a little stricter).
 */
export function assertBranchName(name: string): void {
  const bad =
    name === "" ||
    name.length > 200 ||
    name === "HEAD" ||
    name === "@" ||
    name.startsWith("-") ||
    name.startsWith("/") ||
    name.endsWith("/") ||
    name.endsWith(".") ||
    name.includes("..") ||
    name.includes("//") ||
    name.includes("@{") ||
    // Control characters, space and the characters git refuses in a ref.
    /[\x00-\x20\x7f~^:?*[\\]/.test(name) ||
    name.split("/").some((part) => part.startsWith(".") || part.endsWith(".lock"));
  if (bad) throw ParleyError.invalid(`not a valid branch name: ${JSON.stringify(name)}`);
}

/** NUL-separated output as a list (the last empty entry dropped). */
function nul(output: Buffer): string[] {
  const items = output.toString("utf8").split("\0");
  if (items[items.length - 1] === "") items.pop();
  return items;
}

/** One line of `diff-tree --raw -z`: modes and ids of both sides, the status and the path. */
interface RawChange {
  file: string;
  oldMode: string;
  newMode: string;
  oldId: string;
  newId: string;
  status: string;
}

const ABSENT_MODE = "000000";
const GITLINK_MODE = "160000";
const LINK_MODE = "120000";

/** What `git init` writes as a new working tree's configuration on Linux (git 2.39 to 2.5x). */
const WORK_TREE_CONFIG = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n";

export class WorkspaceRepo {
  constructor(private readonly git: ProjectGit) {}

  // ------------------------------------------------------------------ calls

  /** A call in the store (its configuration, refs and objects only). */
  private inStore(store: string, extra: Partial<Pick<ProjectGitCall, "input" | "accept" | "author">> = {}, env: Partial<Record<RepositoryVariable, string>> = {}): ProjectGitCall {
    return { cwd: store, protocols: "", ...extra, env: { GIT_DIR: store, GIT_NO_REPLACE_OBJECTS: "1", ...env } };
  }

  /** A workspace's own folder in the store (its index and its private objects). */
  private workspaceDir(store: string, workspace: string): string {
    if (!WORKSPACE_NAME.test(workspace)) throw ParleyError.invalid(`not a workspace name: ${JSON.stringify(workspace)}`);
    return path.join(store, "parley-workspaces", workspace);
  }

  /**
   * A call in the store that sees a workspace's private objects too and writes new objects
   * there: what only a working tree has (uncommitted files) stays out of the store's
   * objects, which every working tree of the project can read through its alternates.
   */
  private inWorkspace(store: string, workspace: string | undefined, extra: Partial<Pick<ProjectGitCall, "input" | "accept" | "author">> = {}, env: Partial<Record<RepositoryVariable, string>> = {}): ProjectGitCall {
    if (workspace === undefined) return this.inStore(store, extra, env);
    const objects = path.join(this.workspaceDir(store, workspace), "objects");
    return this.inStore(store, extra, { GIT_OBJECT_DIRECTORY: objects, GIT_ALTERNATE_OBJECT_DIRECTORIES: path.join(store, "objects"), ...env });
  }

  /** Creates a workspace's folder in the store (mode 0700) when missing. */
  private async ensureWorkspace(store: string, workspace: string): Promise<string> {
    const folder = this.workspaceDir(store, workspace);
    await fs.mkdir(path.join(folder, "objects"), { recursive: true, mode: 0o700 });
    return folder;
  }

  /** Forgets a workspace's index and private objects (after its working tree is removed). */
  async forgetWorkspace(store: string, workspace: string): Promise<void> {
    await fs.rm(this.workspaceDir(store, workspace), { recursive: true, force: true });
  }

  /** A plumbing call on a project folder's git directory: refs and objects, never its working tree. */
  private inProject(gitDir: string, extra: Partial<Pick<ProjectGitCall, "input" | "accept">> = {}): ProjectGitCall {
    return { cwd: gitDir, protocols: "", ...extra, env: { GIT_DIR: gitDir, GIT_NO_REPLACE_OBJECTS: "1" } };
  }

  /** The project folder's git directory: `<project>/.git`, a real folder (a `gitdir:` file or a link is refused). */
  private async projectGitDir(projectDir: string): Promise<string> {
    const gitDir = path.join(projectDir, ".git");
    const stat = await fs.lstat(gitDir).catch((error: unknown) => {
      if (errorCode(error) === "ENOENT") return undefined;
      throw error;
    });
    if (!stat?.isDirectory()) throw ParleyError.invalid(`${projectDir} is not a git repository with its own .git folder`);
    return gitDir;
  }

  // ------------------------------------------------------------------ the store

  /** Creates the project's store when missing (idempotent): a bare repository borrowing `<projectGitDir>/objects`. */
  async ensureStore(store: string, projectGitDir: string): Promise<void> {
    const objects = path.join(projectGitDir, "objects");
    if (!(await fs.stat(objects)).isDirectory()) throw ParleyError.invalid(`${objects} is not a folder`);
    await fs.mkdir(store, { recursive: true, mode: 0o700 });
    const head = await fs.lstat(path.join(store, "HEAD")).catch((error: unknown) => {
      if (errorCode(error) === "ENOENT") return undefined;
      throw error;
    });
    if (!head) await this.git.run(["init", "--bare", "--quiet", "--template=", store], { cwd: store, protocols: "", env: { GIT_DIR: store } }, "Creating the workspace store");
    await fs.mkdir(path.join(store, "objects", "info"), { recursive: true });
    await this.git.alternates(store, objects);
    await fs.mkdir(path.join(store, "parley-workspaces"), { recursive: true, mode: 0o700 });
  }

  /** The commit a new session branch starts from: `origin/<branch>` when the project has it, else its local `<branch>`. */
  async resolveBase(projectDir: string, branch: string): Promise<string> {
    assertBranchName(branch);
    const gitDir = await this.projectGitDir(projectDir);
    const objects = path.join(gitDir, "objects");
    for (const ref of [`refs/remotes/origin/${branch}`, `refs/heads/${branch}`]) {
      // Read directly when sure (refs.ts): no process for a ref that is not there, none for one at a commit git named before.
      const known = await readRef(gitDir, ref);
      if (known === null) continue;
      if (known !== undefined && knownCommit(objects, known)) return known;
      const sha = (await this.git.run(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], this.inProject(gitDir, { accept: [1] }), "Finding the base branch")).trim();
      if (sha !== "") {
        rememberCommit(objects, sha);
        return sha;
      }
    }
    throw ParleyError.invalid(`The project has no branch ${branch} (neither origin/${branch} nor a local ${branch}).`);
  }

  /** The tree of a commit. */
  async treeOf(store: string, commit: string): Promise<string> {
    assertId(commit, "commit");
    return (await this.git.run(["rev-parse", "--verify", `${commit}^{tree}`], this.inStore(store), "Reading a commit")).trim();
  }

  /** Whether commit `a` is an ancestor of (or is) commit `b`. */
  async isAncestor(store: string, a: string, b: string): Promise<boolean> {
    assertId(a, "commit");
    assertId(b, "commit");
    const { code } = await this.git.exec(["merge-base", "--is-ancestor", a, b], this.inStore(store, { accept: [1] }), "Comparing commits");
    return code === 0;
  }

  /** Moves a ref of the store from `expected` ("" = must not exist) to `value`; CONFLICT when it is not at `expected`. */
  private async moveRef(store: string, ref: string, value: string, expected: string, why: string): Promise<void> {
    try {
      await this.git.run(["update-ref", "-m", why, ref, value, expected], this.inStore(store), why);
    } catch (error) {
      if (!isParleyError(error) || error.code !== "INVALID") throw error;
      throw new ParleyError("CONFLICT", expected === "" ? `${ref} already exists.` : `${ref} has moved meanwhile: nothing was changed.`, { cause: error });
    }
  }

  /** Removes a session branch from the store if it is still at `expected` (CONFLICT otherwise). */
  async deleteBranch(store: string, branch: string, expected: string): Promise<void> {
    assertBranchName(branch);
    assertId(expected, "commit");
    try {
      await this.git.run(["update-ref", "-d", `refs/heads/${branch}`, expected], this.inStore(store), "Deleting the branch");
    } catch (error) {
      if (!isParleyError(error) || error.code !== "INVALID") throw error;
      throw new ParleyError("CONFLICT", `Branch ${branch} is not at ${expected.slice(0, 12)}: it was not deleted.`, { cause: error });
    }
  }

  /** A commit of `tree` in the store (committer Parley). */
  private async commitTree(store: string, tree: string, parents: string[], author: Author, message: string, workspace?: string): Promise<string> {
    assertId(tree, "tree");
    for (const parent of parents) assertId(parent, "parent");
    const text = message.trim();
    if (text === "") throw ParleyError.invalid("A commit needs a message.");
    const args = ["commit-tree", tree, ...parents.flatMap((parent) => ["-p", parent])];
    return (await this.git.run(args, this.inWorkspace(store, workspace, { input: `${text}\n`, author }), "Committing")).trim();
  }

  /**
   * Merges two commits in the store without a working tree (`merge-tree --write-tree`):
   * the merged tree, or the conflicting files.
   */
  private async mergeTrees(store: string, ours: string, theirs: string, workspace?: string): Promise<{ tree: string } | { conflict: string[] }> {
    const { code, stdout } = await this.git.exec(["merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", ours, theirs], this.inWorkspace(store, workspace, { accept: [1] }), "Merging");
    const [tree = "", ...rest] = nul(stdout);
    if (code === 0) {
      assertId(tree, "merged tree");
      return { tree };
    }
    const end = rest.indexOf("");
    return { conflict: [...new Set(end < 0 ? rest : rest.slice(0, end))] };
  }

  /**
   * `ours` brought up to `theirs`: `theirs` itself when `ours` is its ancestor (a
   * fast-forward), else a merge commit (parents ours, theirs; `author`, `message`), or the
   * conflicting files.
   */
  private async mergeOrForward(store: string, ours: string, theirs: string, author: Author, message: string): Promise<{ tip: string; fastForward: boolean } | { conflict: string[] }> {
    if (await this.isAncestor(store, ours, theirs)) return { tip: theirs, fastForward: true };
    const merged = await this.mergeTrees(store, ours, theirs);
    if ("conflict" in merged) return merged;
    return { tip: await this.commitTree(store, merged.tree, [ours, theirs], author, message), fastForward: false };
  }

  // ------------------------------------------------------------------ working trees

  /**
   * Makes the working tree `dir` (it must not exist; its parent must) of session branch
   * `branch`, which is created in the store at `base` (CONFLICT when it exists): a
   * repository of its own (objects borrowed from the store, read-only) checked out at
   * `base` on `branch` (checkOut, then takeOver). On any failure, nothing is left:
   * neither `dir` nor the branch.
   */
  async createWorkTree(store: string, dir: string, options: { branch: string; base: string; owner?: SandboxOwner; workspace?: string }): Promise<void> {
    await this.checkOut(store, dir, options.base);
    await this.takeOver(store, dir, options);
  }

  /**
   * A tree checked out at `base` in the new folder `dir` (it must not exist; its parent
   * must), on no branch yet (an unborn `parley-spare`): a repository of its own whose
   * objects borrow the store's. A spare (spare.ts) until `takeOver` makes it a session's.
   * On failure `dir` is gone.
   */
  async checkOut(store: string, dir: string, base: string): Promise<void> {
    assertId(base, "base");
    const objects = path.join(store, "objects");
    if (!knownCommit(objects, base)) {
      const { code } = await this.git.exec(["cat-file", "-e", `${base}^{commit}`], this.inStore(store, { accept: [1, 128] }), "Finding the base");
      if (code !== 0) throw ParleyError.invalid(`The base ${base} is not a commit of the project.`);
      rememberCommit(objects, base);
    }
    try {
      await fs.mkdir(dir, { mode: 0o755 });
    } catch (error) {
      if (errorCode(error) === "EEXIST") throw new ParleyError("CONFLICT", `${dir} already exists.`, { cause: error });
      throw error;
    }
    try {
      const gitDir = path.join(dir, ".git");
      await this.initWorkTree(dir);
      await this.git.alternates(gitDir, objects);
      // Parallel checkout: the files are written by several processes.
      await this.git.run(["-c", "checkout.workers=0", "-c", "checkout.thresholdForParallelism=1000", "read-tree", "--reset", "-u", base], this.own(dir), "Checking out the working tree");
    } catch (error) {
      await removeWorkTree(dir);
      throw error;
    }
  }

  /**
   * `git init --template= --initial-branch=parley-spare dir`: on Linux written here, the
   * same files git writes (its configuration is fixed: no system or global configuration
   * is read, and this file system needs none of the case or Unicode settings git probes
   * for elsewhere) — one git process less per working tree.
   */
  private async initWorkTree(dir: string): Promise<void> {
    if (process.platform !== "linux") {
      await this.git.run(["init", "--quiet", "--template=", `--initial-branch=${UNBORN_BRANCH}`, dir], { cwd: dir, protocols: "" }, "Creating the working tree");
      return;
    }
    const gitDir = path.join(dir, ".git");
    for (const folder of ["objects/info", "objects/pack", "refs/heads", "refs/tags"]) await fs.mkdir(path.join(gitDir, folder), { recursive: true });
    await fs.writeFile(path.join(gitDir, "config"), WORK_TREE_CONFIG, { flag: "wx" });
    await fs.writeFile(path.join(gitDir, "HEAD"), `ref: refs/heads/${UNBORN_BRANCH}\n`, { flag: "wx" });
  }

  /**
   * Makes the tree `dir` that `checkOut` made at `base` (and nobody has used since) the
   * session branch `branch`'s: the branch created in the store at `base` (CONFLICT when it
   * exists) and in the tree's repository, its HEAD on it. Given to `owner`; `workspace`
   * (the name `workTreeTree` takes) gets the checkout's index as its first (a faster first
   * `workTreeTree`). On any failure, nothing is left: neither `dir` nor the branch.
   */
  async takeOver(store: string, dir: string, options: { branch: string; base: string; owner?: SandboxOwner; workspace?: string }): Promise<void> {
    const { branch, base, owner, workspace } = options;
    let branchMade = false;
    try {
      assertBranchName(branch);
      assertId(base, "base");
      if (workspace !== undefined) this.workspaceDir(store, workspace);
      await this.moveRef(store, `refs/heads/${branch}`, base, "", "parley: new session branch");
      branchMade = true;
      // The tree's own repository, which nobody has seen yet: its branch and HEAD written as git would.
      const gitDir = path.join(dir, ".git");
      const ref = path.join(gitDir, "refs", "heads", ...branch.split("/"));
      await fs.mkdir(path.dirname(ref), { recursive: true });
      await fs.writeFile(ref, `${base}\n`, { flag: "wx" });
      await fs.writeFile(path.join(gitDir, "HEAD.lock"), `ref: refs/heads/${branch}\n`, { flag: "wx" });
      await fs.rename(path.join(gitDir, "HEAD.lock"), path.join(gitDir, "HEAD"));
      // No sandbox has seen the new tree yet: one chown gives it away.
      await adoptNewTree(owner, dir);
      if (workspace !== undefined) await fs.copyFile(path.join(dir, ".git", "index"), path.join(await this.ensureWorkspace(store, workspace), "index"));
    } catch (error) {
      await removeWorkTree(dir);
      if (branchMade) await this.deleteBranch(store, branch, base);
      throw error;
    }
  }

  /** A call in a working tree's own repository, while it is being made (before any agent has seen it). */
  private own(dir: string): ProjectGitCall {
    const gitDir = path.join(dir, ".git");
    return { cwd: dir, protocols: "", env: { GIT_DIR: gitDir, GIT_WORK_TREE: dir, GIT_INDEX_FILE: path.join(gitDir, "index"), GIT_NO_REPLACE_OBJECTS: "1" } };
  }

  /**
   * The tree of `dir`'s files now, written into the store: `.gitignore` honoured, `.git`
   * left out, links stored as links (a file beyond a linked folder is never read through
   * it), no size limit. `workspace` names the working tree's folder in the store: its
   * index (each call works on a private copy renamed into place) and its private objects,
   * where the new files go (the calls that read this tree take the same `workspace`;
   * `commit` moves what it commits into the store). `start`: the commit (or tree) a
   * missing index starts from, so files of it that `.gitignore` matches stay.
   */
  async workTreeTree(store: string, dir: string, workspace: string, start?: string): Promise<string> {
    if (start !== undefined) assertId(start, "start");
    const folder = await this.ensureWorkspace(store, workspace);
    const shared = path.join(folder, "index");
    const copy = path.join(folder, `index.${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
    const existed = await privateCopy(shared, copy);
    try {
      const call = this.inWorkspace(store, workspace, {}, { GIT_WORK_TREE: dir, GIT_INDEX_FILE: copy });
      if (!existed && start !== undefined) await this.git.run(["read-tree", start], call, "Reading the working tree");
      // Paths that are `.git` to another system's file system (`.GIT`, `git~1`, `.git\u200c`…) are
      // refused: a teammate on macOS or Windows checking the branch out would get a planted .git.
      await this.git.run(["-c", "core.protectNTFS=true", "-c", "core.protectHFS=true", "add", "--all"], call, "Reading the working tree");
      const tree = (await this.git.run(["write-tree"], call, "Reading the working tree")).trim();
      await fs.rename(copy, shared);
      return tree;
    } catch (error) {
      await fs.rm(copy, { force: true });
      throw error;
    }
  }

  /** What changed from one commit or tree to another (no textconv, no external diff: the store's settings only). */
  async diff(store: string, from: string, to: string, options: { maxBytes: number; workspace?: string }): Promise<Diff> {
    assertId(from, "from");
    assertId(to, "to");
    if (options.workspace !== undefined) await this.ensureWorkspace(store, options.workspace);
    const call = this.inWorkspace(store, options.workspace);
    const base = ["diff-tree", "-r", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"];
    const patch = (await this.git.exec([...base, "-p", from, to], call, "Diffing")).stdout;
    const numstat = nul((await this.git.exec([...base, "-z", "--numstat", from, to], call, "Diffing")).stdout);
    const status = new Map<string, string>();
    for (const change of await this.rawDiff(store, from, to, options.workspace)) status.set(change.file, change.status);
    const files: DiffFile[] = [];
    for (const line of numstat) {
      const [added = "", deleted = "", ...name] = line.split("\t");
      const file = name.join("\t");
      files.push({ file, additions: Number.parseInt(added, 10) || 0, deletions: Number.parseInt(deleted, 10) || 0, status: statusName(status.get(file)) });
    }
    const truncated = patch.length > options.maxBytes;
    return { text: patch.subarray(0, Math.max(0, options.maxBytes)).toString("utf8"), truncated, files };
  }

  private async rawDiff(store: string, from: string, to: string, workspace?: string): Promise<RawChange[]> {
    const items = nul((await this.git.exec(["diff-tree", "-r", "-z", "--no-renames", from, to], this.inWorkspace(store, workspace), "Diffing")).stdout);
    const changes: RawChange[] = [];
    for (let i = 0; i + 1 < items.length; i += 2) {
      const [oldMode = "", newMode = "", oldId = "", newId = "", status = ""] = (items[i] ?? "").replace(/^:/, "").split(" ");
      changes.push({ file: items[i + 1] ?? "", oldMode, newMode, oldId, newId, status });
    }
    return changes;
  }

  /**
   * Commits `tree` on `branch` (parent `expectedTip`, the member as author): the new tip.
   * CONFLICT when the branch has moved meanwhile (nothing changed); INVALID when the tree
   * is the tip's (nothing to commit). `workspace`: the tree is one of `workTreeTree`'s
   * for it; the commit's new objects are copied from its private objects into the store.
   */
  async commit(store: string, options: { branch: string; expectedTip: string; tree: string; message: string; author: Author; workspace?: string }): Promise<string> {
    const { branch, expectedTip, tree, message, author, workspace } = options;
    assertBranchName(branch);
    assertId(tree, "tree");
    if ((await this.treeOf(store, expectedTip)) === tree) throw ParleyError.invalid("Nothing to commit: the working tree is the branch's last commit.");
    if (workspace !== undefined) await this.ensureWorkspace(store, workspace);
    // A branch that moved already: refused before anything of the working tree reaches the store's objects.
    const now = (await this.git.run(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], this.inStore(store, { accept: [1] }), "Reading the branch")).trim();
    if (now !== expectedTip) throw new ParleyError("CONFLICT", `refs/heads/${branch} has moved meanwhile: nothing was changed.`);
    const sha = await this.commitTree(store, tree, [expectedTip], author, message, workspace);
    if (workspace !== undefined) await this.publish(store, workspace, sha, expectedTip);
    await this.moveRef(store, `refs/heads/${branch}`, sha, expectedTip, "parley: commit");
    return sha;
  }

  /** Copies the objects of `commit` that `parent` lacks from a workspace's private objects into the store (one pack). */
  private async publish(store: string, workspace: string, commit: string, parent: string): Promise<void> {
    const pack = await this.git.exec(["pack-objects", "--revs", "--stdout", "-q"], this.inWorkspace(store, workspace, { input: `${commit}\n^${parent}\n` }), "Packing the commit");
    await this.git.run(["index-pack", "--stdin"], this.inStore(store, { input: pack.stdout }), "Storing the commit");
  }

  /**
   * Brings `base`'s new commits into `branch` (at `tip`), carrying the working tree's
   * uncommitted changes (`workTree`, its tree now) along: a fast-forward when `tip` is an
   * ancestor of `base`, a merge commit (parents tip, base; the member as author) otherwise.
   * The files of `dir` that change are written first (`applyTree`), then the branch moves
   * (from `tip`, CONFLICT if it moved meanwhile: the files are put back). A conflict changes
   * nothing and names the files.
   */
  async updateFromBase(
    store: string,
    options: { branch: string; tip: string; base: string; workTree: string; dir: string; author: Author; owner?: SandboxOwner; message?: string; workspace?: string },
  ): Promise<UpdateResult> {
    const { branch, tip, base, workTree, dir, author, owner, workspace } = options;
    assertBranchName(branch);
    assertId(workTree, "working tree");
    if (workspace !== undefined) await this.ensureWorkspace(store, workspace);
    if (await this.isAncestor(store, base, tip)) return { kind: "up-to-date", tip };
    const tipTree = await this.treeOf(store, tip);
    const moved = await this.mergeOrForward(store, tip, base, author, options.message ?? `Merge ${base.slice(0, 12)} into ${branch}`);
    if ("conflict" in moved) return { kind: "conflict", files: moved.conflict };
    const { tip: newTip, fastForward } = moved;
    let newWorkTree = await this.treeOf(store, newTip);
    if (workTree !== tipTree) {
      // The uncommitted changes, as a commit on the tip, merged with the new tip (their merge base is the tip).
      const uncommitted = await this.commitTree(store, workTree, [tip], { name: "Parley", email: "parley@localhost" }, "Uncommitted changes", workspace);
      const carried = await this.mergeTrees(store, uncommitted, newTip, workspace);
      if ("conflict" in carried) return { kind: "conflict", files: carried.conflict };
      newWorkTree = carried.tree;
    }
    const changedFiles = await this.applyTree(store, dir, workTree, newWorkTree, owner, workspace);
    try {
      await this.moveRef(store, `refs/heads/${branch}`, newTip, tip, "parley: update from base");
    } catch (error) {
      await this.applyTree(store, dir, newWorkTree, workTree, owner, workspace);
      throw error;
    }
    return { kind: "updated", tip: newTip, newWorkTree, changedFiles, fastForward };
  }

  /**
   * Makes the files of `dir` that differ between `fromTree` (what they are now) and
   * `toTree` what `toTree` has: written or deleted one by one, never through a link
   * (nofollow.ts), given to `owner`. When a write fails, what was already written is put
   * back as `fromTree` has it, and the error is thrown. The changed files.
   */
  async applyTree(store: string, dir: string, fromTree: string, toTree: string, owner?: SandboxOwner, workspace?: string): Promise<string[]> {
    assertId(fromTree, "tree");
    assertId(toTree, "tree");
    if (workspace !== undefined) await this.ensureWorkspace(store, workspace);
    // Nested repositories (gitlinks) have no content here: left alone.
    const changes = (await this.rawDiff(store, fromTree, toTree, workspace)).filter((change) => change.oldMode !== GITLINK_MODE && change.newMode !== GITLINK_MODE);
    // git never checks such a path out; a tree made elsewhere (a pushed base) might hold one.
    const dotGit = changes.find((change) => change.file.split("/").some((part) => part.toLowerCase() === ".git"));
    if (dotGit) throw ParleyError.invalid(`${dotGit.file}: a path inside a .git folder is never written into a working tree.`);
    // Deletions first: a file that becomes a folder (or the reverse) is gone before its replacement is written.
    const ordered = [...changes.filter((change) => change.newMode === ABSENT_MODE), ...changes.filter((change) => change.newMode !== ABSENT_MODE)];
    const contents = await this.blobs(
      store,
      workspace,
      ordered.filter((change) => change.newMode !== ABSENT_MODE).map((change) => change.newId),
    );
    const files = new ProjectFiles(dir, owner);
    const done: RawChange[] = [];
    try {
      for (const change of ordered) {
        if (change.newMode === ABSENT_MODE) await files.remove(change.file, () => false);
        else if (!(await files.put(change.file, content(change.newMode, contents.get(change.newId), change.file)))) {
          throw new ParleyError("CONFLICT", `${change.file} could not be written: a folder or a file is in its way in the working tree.`);
        }
        done.push(change);
      }
    } catch (error) {
      try {
        await this.putBack(store, workspace, files, done.reverse());
      } catch (undo) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ParleyError("INTERNAL", `Writing the working tree failed (${reason}) and what was written could not all be put back: ${undo instanceof Error ? undo.message : String(undo)}`, { cause: undo, details: { files: done.map((change) => change.file) } });
      }
      throw error;
    }
    return changes.map((change) => change.file);
  }

  /** Undoes the changes of `applyTree` that were made (in reverse order): each file as its old side has it. */
  private async putBack(store: string, workspace: string | undefined, files: ProjectFiles, done: RawChange[]): Promise<void> {
    const old = await this.blobs(
      store,
      workspace,
      done.filter((change) => change.oldMode !== ABSENT_MODE).map((change) => change.oldId),
    );
    for (const change of done) {
      if (change.oldMode === ABSENT_MODE) await files.remove(change.file, () => false);
      else await files.put(change.file, content(change.oldMode, old.get(change.oldId), change.file));
    }
  }

  /** The contents of blobs by id (one `cat-file --batch` in the store). */
  private async blobs(store: string, workspace: string | undefined, ids: string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(ids)];
    const found = new Map<string, Buffer>();
    if (unique.length === 0) return found;
    for (const id of unique) assertId(id, "blob");
    const { stdout: out } = await this.git.exec(["cat-file", "--batch"], this.inWorkspace(store, workspace, { input: `${unique.join("\n")}\n` }), "Reading files");
    // "<id> <type> <size>\n<content>\n" per object.
    let offset = 0;
    while (offset < out.length) {
      const end = out.indexOf(0x0a, offset);
      if (end < 0) break;
      const [id = "", type = "", size = ""] = out.subarray(offset, end).toString("utf8").split(" ");
      if (type !== "blob" || !/^\d+$/.test(size)) throw new ParleyError("CORRUPT", `git cat-file: ${id} ${type}`);
      const start = end + 1;
      found.set(id, out.subarray(start, start + Number(size)));
      offset = start + Number(size) + 1;
    }
    return found;
  }

  /**
   * After `commit` or `updateFromBase` moved the session branch to `tip`: the working
   * tree's own repository follows, so the agent's `git log` and `git status` agree with
   * the branch. Its `refs/heads/<branch>` is set to `tip` and, when its HEAD is that branch,
   * its index becomes the workspace's index (the files as they are) with the entries that
   * differ from `tip` set back to `tip`'s — what is not committed stays a change. No git
   * runs in it: both files are written without following a link (nofollow.ts), given to
   * `owner`; the objects are in the store, which the working tree borrows.
   */
  async syncWorkTree(store: string, dir: string, options: { branch: string; tip: string; workspace: string; owner?: SandboxOwner }): Promise<void> {
    const { branch, tip, workspace, owner } = options;
    assertBranchName(branch);
    assertId(tip, "tip");
    const files = new ProjectFiles(dir, owner);
    if (!(await files.put(`.git/refs/heads/${branch}`, { data: Buffer.from(`${tip}\n`), mode: 0o666 }))) {
      throw new ParleyError("CONFLICT", `The working tree's branch ${branch} could not be set: a folder is in its way.`);
    }
    const head = (await readInside(dir, [".git", "HEAD"])) ?? undefined;
    if (head?.toString("utf8").trim() !== `ref: refs/heads/${branch}`) return;
    const folder = await this.ensureWorkspace(store, workspace);
    const shared = path.join(folder, "index");
    const copy = path.join(folder, `index.${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
    if (!(await privateCopy(shared, copy))) return;
    try {
      const call = this.inWorkspace(store, workspace, {}, { GIT_WORK_TREE: dir, GIT_INDEX_FILE: copy });
      const now = (await this.git.run(["write-tree"], call, "Reading the working tree's index")).trim();
      const back = (await this.rawDiff(store, await this.treeOf(store, tip), now, workspace)).map((change) =>
        change.oldMode === ABSENT_MODE ? `0 ${"0".repeat(change.oldId.length)}\t${change.file}` : `${change.oldMode} ${change.oldId}\t${change.file}`,
      );
      if (back.length) await this.git.run(["update-index", "-z", "--index-info"], { ...call, input: back.map((line) => `${line}\0`).join("") }, "Writing the working tree's index");
      await files.put(".git/index", { data: await fs.readFile(copy), mode: 0o666 });
    } finally {
      await fs.rm(copy, { force: true });
    }
  }

  // ------------------------------------------------------------------ getting the work out

  /**
   * Merges session commit `tip` into the project folder's branch `target` (projects
   * without a remote): a fast-forward when possible, else a merge commit made in the store
   * (the member as author). The new objects are copied into the project's object store,
   * then the branch moves (from the value read, CONFLICT if it moved meanwhile). When
   * `target` is checked out in the project folder, its index and files follow (refused,
   * nothing changed, when the folder has local changes in the files that change), with
   * the store's configuration, never the project's. A conflict changes nothing. Records
   * the new target in the store (`refs/parley/merged/<target>`).
   */
  async mergeInto(store: string, projectDir: string, options: { target: string; tip: string; author: Author; message: string }): Promise<MergeResult> {
    const { target, tip, author, message } = options;
    assertBranchName(target);
    assertId(tip, "tip");
    const gitDir = await this.projectGitDir(projectDir);
    // The pack is written there: a link planted in the project's .git (it was writable by
    // agents before workspaces) must not send it elsewhere.
    for (const folder of ["objects", "objects/pack", "refs", "refs/heads"]) await realFolder(path.join(gitDir, folder));
    const ref = `refs/heads/${target}`;
    const old = (await this.git.run(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], this.inProject(gitDir, { accept: [1] }), "Reading the project's branch")).trim();
    if (old === "") throw ParleyError.invalid(`The project has no branch ${target}.`);
    if (await this.isAncestor(store, tip, old)) {
      await this.markMerged(store, target, old);
      return { kind: "up-to-date", target: old };
    }
    const moved = await this.mergeOrForward(store, old, tip, author, message);
    if ("conflict" in moved) return { kind: "conflict", files: moved.conflict };
    const { tip: next, fastForward } = moved;
    // The objects the project lacks, packed in the store and indexed into the project's object store.
    const pack = await this.git.exec(["pack-objects", "--revs", "--stdout", "-q"], this.inStore(store, { input: `${next}\n^${old}\n` }), "Packing the merge");
    await this.git.run(["index-pack", "--stdin"], this.inStore(store, { input: pack.stdout }, { GIT_OBJECT_DIRECTORY: path.join(gitDir, "objects") }), "Copying the merge into the project");

    const head = (await this.git.run(["symbolic-ref", "--quiet", "HEAD"], this.inProject(gitDir, { accept: [1] }), "Reading the project's HEAD")).trim();
    const checkedOut = head === ref;
    // The project's index and files, through the store's configuration (GIT_DIR = the store) and the project's objects.
    const workTree = this.inStore(store, {}, { GIT_OBJECT_DIRECTORY: path.join(gitDir, "objects"), GIT_INDEX_FILE: path.join(gitDir, "index"), GIT_WORK_TREE: projectDir });
    if (checkedOut) {
      const index = await fs.lstat(path.join(gitDir, "index")).catch((error: unknown) => {
        if (errorCode(error) === "ENOENT") return undefined;
        throw error;
      });
      if (index && !index.isFile()) throw ParleyError.invalid(`${path.join(gitDir, "index")} is not a regular file: the project folder was not changed.`);
      // Exit 1: some files differ from the index (read-tree then decides whether they are in the way).
      await this.git.run(["update-index", "-q", "--refresh"], { ...workTree, accept: [1] }, "Reading the project folder");
      try {
        await this.git.run(["read-tree", "-m", "-u", "-n", old, next], workTree, "Checking the project folder");
      } catch (error) {
        if (!isParleyError(error) || error.code !== "INVALID") throw error;
        throw ParleyError.invalid(`The project folder has local changes in files the merge changes: nothing was merged.\n${error.message}`);
      }
    }
    try {
      await this.git.run(["update-ref", "-m", "parley: merge", ref, next, old], this.inProject(gitDir), "Moving the project's branch");
    } catch (error) {
      if (!isParleyError(error) || error.code !== "INVALID") throw error;
      throw new ParleyError("CONFLICT", `The project's branch ${target} has moved meanwhile: nothing was merged.`, { cause: error });
    }
    if (checkedOut) {
      try {
        await this.git.run(["read-tree", "-m", "-u", old, next], workTree, "Updating the project folder");
      } catch (error) {
        await this.git.run(["update-ref", "-m", "parley: merge undone", ref, old, next], this.inProject(gitDir), "Putting the project's branch back");
        throw error;
      }
    }
    await this.markMerged(store, target, next);
    return { kind: "merged", target: next, fastForward };
  }

  private async markMerged(store: string, target: string, commit: string): Promise<void> {
    await this.git.run(["update-ref", "-m", "parley: merged", `${MERGED_PREFIX}${target}`, commit], this.inStore(store), "Recording the merge");
  }

  /**
   * Pushes `tip` to the remote's `refs/heads/<branch>` from the store, with the project's
   * credential (through ProjectGit's helper). A refusal (not a fast-forward…) is INVALID
   * with git's message, the credential redacted.
   */
  async push(store: string, options: { url: string; protocols: string; credential?: Credential; branch: string; tip: string }): Promise<void> {
    const { url, protocols, credential, branch, tip } = options;
    assertBranchName(branch);
    assertId(tip, "tip");
    if (url.startsWith("-")) throw ParleyError.invalid("not a remote URL");
    await this.git.run(["push", "--quiet", "--", url, `${tip}:refs/heads/${branch}`], { ...this.inStore(store), protocols, ...(credential ? { credential } : {}) }, `Pushing ${branch}`);
  }

  /** The commits `base..tip` as an mbox (`git format-patch --stdout`), for `git am` on `base`. */
  async formatPatch(store: string, base: string, tip: string): Promise<string> {
    assertId(base, "base");
    assertId(tip, "tip");
    return this.git.run(["format-patch", "--stdout", "--no-ext-diff", "--no-textconv", "--no-color", `${base}..${tip}`], this.inStore(store), "Making the patch");
  }
}

function statusName(letter: string | undefined): DiffFile["status"] {
  if (letter === "A") return "added";
  if (letter === "D") return "deleted";
  if (letter === "T") return "type-changed";
  return "modified";
}

/** What `ProjectFiles.put` writes for a tree entry. */
function content(mode: string, data: Buffer | undefined, file: string): { data: Buffer; mode: number } | { link: string } {
  if (!data) throw new ParleyError("CORRUPT", `git gave no content for ${file}`);
  if (mode === LINK_MODE) return { link: data.toString("utf8") };
  return { data, mode: mode === "100755" ? 0o777 : 0o666 };
}

/** Refuses a path that is not a real folder (a link, a file, nothing). */
async function realFolder(folder: string): Promise<void> {
  const stat = await fs.lstat(folder).catch((error: unknown) => {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  });
  if (!stat?.isDirectory()) throw ParleyError.invalid(`${folder} is not a folder (a link?): the project was not changed.`);
}

/**
 * A copy of an index for one operation, dated as the original (git trusts an entry whose
 * stat data match unless it is as new as the index file: a copy dated now would hide a
 * same-size change made in the second the index was written). False when there is none.
 */
async function privateCopy(shared: string, copy: string): Promise<boolean> {
  try {
    await fs.copyFile(shared, copy);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
  const stat = await fs.stat(shared).catch((error: unknown) => {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  });
  // Replaced since (a rename by a concurrent call): dated at the epoch, every entry is checked.
  const time = stat ? stat.mtime : new Date(0);
  await fs.utimes(copy, time, time);
  return true;
}

/**
 * Deletes a working tree, never following a link: each folder is opened without following
 * links by name inside its opened parent (`/proc/self/fd/<fd>/<name>`) and its entries are
 * removed by name in it, so a folder swapped for a link meanwhile leads nowhere outside.
 * A missing `dir` is fine.
 */
export async function removeWorkTree(dir: string): Promise<void> {
  await removeEntry(dir, true);
}

async function emptyFolder(folder: FileHandle): Promise<void> {
  const here = `/proc/self/fd/${folder.fd}`;
  const entries = await fs.readdir(here, { withFileTypes: true });
  // A few at a time: the thread pool does the work, the event loop stays free.
  for (let i = 0; i < entries.length; i += 16) await Promise.all(entries.slice(i, i + 16).map((entry) => removeEntry(`${here}/${entry.name}`, entry.isDirectory())));
}

/**
 * Removes `at` (a working tree, or an entry of an opened folder): a folder (opened without
 * following a link) with its content, anything else by name. Already gone is fine.
 */
async function removeEntry(at: string, folderListed: boolean): Promise<void> {
  // Not a folder (a link, a file; or swapped for one since it was listed): removed by name below.
  const child = folderListed ? await openFolder(at) : "not-folder";
  if (child === "gone") return;
  if (child === "not-folder") {
    try {
      // unlink never follows the last name.
      await fs.unlink(at);
    } catch (error) {
      const c = errorCode(error);
      if (c === "ENOENT") return;
      // Listed as a file, a folder now (made meanwhile): removed as a folder.
      if (!folderListed && (c === "EISDIR" || c === "EPERM")) return removeEntry(at, true);
      throw error;
    }
    return;
  }
  try {
    await emptyFolder(child);
  } finally {
    await child.close();
  }
  await fs.rmdir(at);
}
