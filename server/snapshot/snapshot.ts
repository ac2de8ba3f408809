import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { type ProgramRunner, programHelper } from "../process/helper";
import type { SandboxOwner } from "../sandbox/owner";
import { type Git, type GitCall, GitError, findGit, nulList, runGit } from "./git";
import { ProjectFiles } from "./nofollow";
import { logger } from "../log";

const log = logger("snapshot");

/**
 * Snapshots of a project's files: git trees kept in a git directory of Parley's own,
 * `<dataDir>/snapshot/<projectId>` (never the project's `.git`, so it works whether or
 * not the project is a repository, and leaves its repository untouched). A snapshot
 * honours the project's `.gitignore` files, stores symlinks as links (never following
 * them), leaves out nested repositories and files over `maxFileBytes`, which a restore
 * neither rewrites nor deletes.
 *
 * Operations on one project take turns in this process; each works on a private copy of
 * the index that replaces the shared one by a rename only when the operation succeeded,
 * so a process killed in the middle of a snapshot leaves the store as it was (git writes
 * its objects atomically too) and the next snapshot works. Instances sharing the data
 * directory cannot corrupt each other either: the last complete index wins, and an index
 * is only a cache of what the tree already says.
 */

export interface Project {
  id: string;
  directory: string;
}

/** What a restore could not do: files below a link, or where a folder now stands. */
export interface RestoreResult {
  skipped: string[];
}

export interface FileChange {
  /** Path relative to the project, with `/`. */
  file: string;
  additions: number;
  deletions: number;
}

export type SnapshotState = { kind: "git"; git: Git } | { kind: "unavailable"; reason: string };

export interface SnapshotOptions {
  /** Where the snapshot stores live (`<dataDir>/snapshot`). */
  root: string;
  /** Files larger than this are left out of snapshots. */
  maxFileBytes?: number;
  /** A snapshot that would store more bytes of new or changed files than this is not taken (SnapshotSkippedError). */
  maxNewBytes?: number;
  /** The PATH git is looked up on (tests simulate a machine without git). */
  pathVariable?: string;
  /** What starts git: by default this process's helper (server/process/helper.ts). */
  runner?: ProgramRunner;
}

/** New files one snapshot may store, in MB (config `limits.snapshotMb`): a step that wrote more gets no snapshot. */
export const DEFAULT_SNAPSHOT_MB = 512;

/** Files over 5 MB are not snapshotted (README "Snapshots and revert"). */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** A leftover private index older than this belonged to an operation that died. */
const STALE_INDEX_MS = 10 * 60 * 1000;

export class SnapshotUnavailableError extends Error {
  constructor(reason: string) {
    super(`Snapshots are unavailable on this server: ${reason}`);
    this.name = "SnapshotUnavailableError";
  }
}

/** A snapshot that was not taken on purpose (too much to store): the step goes on without one. */
export class SnapshotSkippedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "SnapshotSkippedError";
  }
}

/** The project's directory does not exist (any more): there is nothing to snapshot. */
export class ProjectMissingError extends Error {
  constructor(directory: string) {
    super(`the project directory ${directory} does not exist`);
    this.name = "ProjectMissingError";
  }
}

export class Snapshots {
  readonly state: SnapshotState;
  readonly root: string;
  readonly maxFileBytes: number;
  readonly maxNewBytes: number;
  private readonly runner: ProgramRunner;
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly ready = new Set<string>();
  /** Per store, the shared index this process last wrote (by inode, size and mtime) and its tree. */
  private readonly trees = new Map<string, { index: string; tree: string }>();

  constructor(options: SnapshotOptions) {
    this.root = options.root;
    this.maxFileBytes = options.maxFileBytes ?? MAX_FILE_BYTES;
    this.maxNewBytes = options.maxNewBytes ?? DEFAULT_SNAPSHOT_MB * 1024 * 1024;
    this.runner = options.runner ?? programHelper();
    const git = findGit(options.pathVariable);
    this.state = "missing" in git ? { kind: "unavailable", reason: git.missing } : { kind: "git", git };
  }

  get available(): boolean {
    return this.state.kind === "git";
  }

  /** One line for the server's start log. */
  describe(): string {
    return this.state.kind === "git"
      ? `snapshots: git ${this.state.git.version} (${this.state.git.path}), stored in ${this.root}`
      : `snapshots are OFF — ${this.state.reason}: no patch parts, no revert`;
  }

  /** The tree of the project as it is now. */
  track(project: Project): Promise<string> {
    return this.exclusive(project, (git, ctx) => this.trackNow(git, ctx));
  }

  /** Run git through this instance's runner (the process helper unless a test gives another). */
  private run(git: Git, args: string[], call: GitCall): Promise<Buffer> {
    return runGit(git, args, call, this.runner);
  }

  /** Files that differ between two snapshots, sorted. */
  changed(project: Project, from: string, to: string): Promise<string[]> {
    return this.exclusive(project, async (git, ctx) => {
      const out = await this.run(git, ["diff-tree", "-r", "-z", "--no-renames", "--name-only", from, to], ctx.call());
      return nulList(out).sort();
    });
  }

  /** Added and deleted lines per changed file between two snapshots (binary files count 0). */
  numstat(project: Project, from: string, to: string): Promise<FileChange[]> {
    return this.exclusive(project, async (git, ctx) => {
      const out = await this.run(git, ["diff-tree", "-r", "-z", "--no-renames", "--numstat", from, to], ctx.call());
      return parseNumstat(out);
    });
  }

  /** A unified diff between two snapshots (of `files` only, when given), cut at `maxBytes` (then `truncated`). */
  diffText(project: Project, from: string, to: string, options: { files?: string[]; maxBytes?: number } = {}): Promise<{ text: string; truncated: boolean }> {
    const maxBytes = options.maxBytes ?? 256 * 1024;
    return this.exclusive(project, async (git, ctx) => {
      if (options.files?.length === 0) return { text: "", truncated: false };
      const only = options.files ? ["--", ...options.files] : [];
      const out = await this.run(git, ["diff-tree", "-r", "-p", "--no-renames", "--no-color", from, to, ...only], ctx.call());
      const truncated = out.length > maxBytes;
      return { text: out.subarray(0, maxBytes).toString("utf8"), truncated };
    });
  }

  /**
   * Put each of `files` back as it is in snapshot `hash`: rewritten when the snapshot has
   * it, deleted when it does not (then folders left empty go too). Paths are relative to
   * the project; one that is not is refused. Nothing is done through a symlink: every
   * folder is opened without following links and every change is made in the opened
   * folder (nofollow.ts), so a folder swapped for a link meanwhile — even by a command
   * running at that very moment — cannot lead a write or a deletion out of the project. A
   * file below a link now is not in the project: it is left alone (`skipped`); a link
   * where the snapshot has a folder is replaced by that folder, as git does. A file now
   * larger than `maxFileBytes` is never deleted. What is written belongs to `owner` (the
   * sandbox's user, server/sandbox/owner.ts).
   */
  restore(project: Project, hash: string, files: readonly string[], owner?: SandboxOwner): Promise<RestoreResult> {
    return this.exclusive(project, async (git, ctx) => {
      const wanted = [...new Set(files)];
      for (const file of wanted) assertRelative(file);
      const inTree = new Map<string, TreeEntry>();
      for (const line of nulList(await this.run(git, ["ls-tree", "-r", "-z", "--full-tree", hash], ctx.call()))) {
        const entry = treeEntry(line);
        if (entry) inTree.set(entry.file, entry);
      }
      const present = wanted.flatMap((file) => {
        const entry = inTree.get(file);
        return entry && entry.type === "blob" ? [entry] : [];
      });
      const absent = wanted.filter((file) => !inTree.has(file));
      const contents = await this.blobs(git, ctx, present.map((entry) => entry.oid));
      const target = new ProjectFiles(ctx.directory, owner);
      const skipped: string[] = [];
      for (const entry of present) {
        const data = contents.get(entry.oid);
        if (!data) throw new GitError(`git cat-file gave no content for ${entry.file}`, null);
        const content = entry.mode === "120000" ? { link: data.toString("utf8") } : { data, mode: entry.mode === "100755" ? 0o777 : 0o666 };
        if (!(await target.put(entry.file, content))) skipped.push(entry.file);
      }
      for (const file of absent) await target.remove(file, (now) => now.kind === "file" && now.size > this.maxFileBytes);
      return { skipped };
    });
  }

  /**
   * Lets `project`'s store read every snapshot of the store `fromId` (objects/info/alternates):
   * a fork's workspace reverts and diffs the patches it copied from its source.
   */
  inherit(project: Project, fromId: string): Promise<void> {
    return this.exclusive(project, async (_git, ctx) => {
      const from = path.join(this.root, safeName(fromId), "objects");
      const info = path.join(ctx.gitDir, "objects", "info");
      await fs.mkdir(info, { recursive: true, mode: 0o700 });
      await fs.writeFile(path.join(info, "alternates"), `${from}\n`, { mode: 0o600 });
    });
  }

  /**
   * Removes `project`'s store when nothing borrows its objects (a fork's store may): the
   * workspace it snapshotted is gone. A store still borrowed stays.
   */
  async forget(project: Project): Promise<void> {
    if (this.state.kind !== "git") return;
    const gitDir = path.join(this.root, safeName(project.id));
    const objects = path.join(gitDir, "objects");
    for (const name of await fs.readdir(this.root).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? [] : Promise.reject(error)))) {
      if (name === project.id) continue;
      const alternates = await ifExists(fs.readFile(path.join(this.root, name, "objects", "info", "alternates"), "utf8"));
      if (alternates?.split("\n").includes(objects)) return;
    }
    await fs.rm(gitDir, { recursive: true, force: true });
    this.ready.delete(gitDir);
    this.trees.delete(gitDir);
  }

  // ------------------------------------------------------------------ internals

  private async exclusive<T>(project: Project, work: (git: Git, ctx: OperationContext) => Promise<T>): Promise<T> {
    if (this.state.kind !== "git") throw new SnapshotUnavailableError(this.state.reason);
    const git = this.state.git;
    const before = this.queues.get(project.id) ?? Promise.resolve();
    const run = before.then(async () => {
      if (!(await ifExists(fs.stat(project.directory)))?.isDirectory()) throw new ProjectMissingError(project.directory);
      const ctx = new OperationContext(path.join(this.root, safeName(project.id)), project.directory);
      await this.prepare(git, ctx);
      return work(git, ctx);
    });
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(project.id, settled);
    try {
      return await run;
    } finally {
      if (this.queues.get(project.id) === settled) this.queues.delete(project.id);
    }
  }

  /** Create the store on first use; clear private indexes an operation that died left behind. */
  private async prepare(git: Git, ctx: OperationContext): Promise<void> {
    if (this.ready.has(ctx.gitDir)) return;
    await fs.mkdir(ctx.gitDir, { recursive: true, mode: 0o700 });
    if (!(await ifExists(fs.stat(path.join(ctx.gitDir, "HEAD"))))) await this.run(git, ["init", "--quiet"], ctx.call());
    const now = Date.now();
    for (const name of await fs.readdir(ctx.gitDir)) {
      if (!name.startsWith("index.parley-")) continue;
      const file = path.join(ctx.gitDir, name);
      const stat = await ifExists(fs.stat(file));
      if (stat && now - stat.mtimeMs > STALE_INDEX_MS) await fs.rm(file, { force: true });
    }
    this.ready.add(ctx.gitDir);
  }

  /**
   * The tree of the project now. When the shared index is the one this process last wrote
   * and git lists no change against it, that index's tree is the answer (one git call);
   * otherwise the changes go into a private copy of the index, which becomes the shared
   * one once its tree is written.
   */
  private async trackNow(git: Git, ctx: OperationContext): Promise<string> {
    const shared = await indexKey(ctx.sharedIndex);
    const known = this.trees.get(ctx.gitDir);
    let changes: Changes | undefined;
    if (shared !== undefined && known?.index === shared) {
      changes = await this.changes(git, ctx, ctx.sharedIndex);
      if (changes.add.length === 0 && changes.drop.length === 0) return known.tree;
    }
    const index = await ctx.privateIndex();
    try {
      // Listed against the shared index only if the copy is of that same index.
      if (changes === undefined || (await indexKey(ctx.sharedIndex)) !== shared) changes = await this.changes(git, ctx, index);
      if (changes.bytes > this.maxNewBytes) {
        throw new SnapshotSkippedError(
          `not snapshotted: ${changes.add.length} new or changed files of ${(changes.bytes / 1048576).toFixed(1)} MB, more than one snapshot stores (${(this.maxNewBytes / 1048576).toFixed(0)} MB, limits.snapshotMb)`,
        );
      }
      if (changes.add.length) await this.addFiles(git, ctx, index, changes);
      if (changes.drop.length) await this.run(git, ["update-index", "--force-remove", "-z", "--stdin"], ctx.call(index, changes.drop.join("\0")));
      const tree = (await this.run(git, ["write-tree"], ctx.call(index))).toString("utf8").trim();
      await fs.rename(index, ctx.sharedIndex);
      const written = await indexKey(ctx.sharedIndex);
      if (written !== undefined) this.trees.set(ctx.gitDir, { index: written, tree });
      return tree;
    } catch (error) {
      await fs.rm(index, { force: true });
      throw error;
    }
  }

  /**
   * Store `changes.add` in the index. When git refuses the list (a file that changed under
   * it, say), each file is stored on its own and those git refuses are left out of the
   * snapshot (moved to `changes.drop`): one path never fails the whole step.
   */
  private async addFiles(git: Git, ctx: OperationContext, index: string, changes: Changes): Promise<void> {
    const args = ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"];
    try {
      await this.run(git, args, ctx.call(index, changes.add.join("\0")));
      return;
    } catch (error) {
      if (!(error instanceof GitError)) throw error;
      log.error(`storing ${changes.add.length} files failed, storing them one by one: ${error.message}`);
    }
    for (const file of changes.add) {
      try {
        await this.run(git, args, ctx.call(index, file));
      } catch (error) {
        if (!(error instanceof GitError)) throw error;
        log.error(`${file} is left out of the snapshot: ${error.message}`);
        changes.drop.push(file);
      }
    }
  }

  /** What differs between the project and an index: files to store, and files too large to keep. */
  private async changes(git: Git, ctx: OperationContext, index: string): Promise<Changes> {
    const listed = nulList(await this.run(git, ["ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard"], ctx.call(index)));
    const add: string[] = [];
    const drop: string[] = [];
    let bytes = 0;
    const folders = new Map<string, Promise<boolean>>();
    for (const file of new Set(listed)) {
      // A directory entry is a nested repository: left out.
      if (file.endsWith("/")) continue;
      // A file below a link (a folder replaced by a symlink): no longer a file of the
      // project; git would refuse it ("beyond a symbolic link") and fail the whole snapshot.
      if (!(await this.realFolders(ctx.directory, file, folders))) {
        drop.push(file);
        continue;
      }
      const stat = await ifExists(fs.lstat(path.join(ctx.directory, file)));
      if (stat?.isFile() && stat.size > this.maxFileBytes) drop.push(file);
      else {
        add.push(file);
        if (stat?.isFile()) bytes += stat.size;
      }
    }
    return { add, drop, bytes };
  }

  /**
   * Whether every folder on the way to `file` is a real folder (or missing: the file was
   * deleted with it), not a link or a file; answers are kept in `known` per folder.
   */
  private async realFolders(directory: string, file: string, known: Map<string, Promise<boolean>>): Promise<boolean> {
    const parts = file.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const folder = parts.slice(0, i).join("/");
      let answer = known.get(folder);
      if (!answer) {
        answer = ifExists(fs.lstat(path.join(directory, folder))).then((stat) => stat === undefined || stat.isDirectory());
        known.set(folder, answer);
      }
      if (!(await answer)) return false;
    }
    return true;
  }

  /** The contents of blobs, by id (one `git cat-file --batch`). */
  private async blobs(git: Git, ctx: OperationContext, oids: string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(oids)];
    const found = new Map<string, Buffer>();
    if (unique.length === 0) return found;
    const out = await this.run(git, ["cat-file", "--batch"], ctx.call(undefined, `${unique.join("\n")}\n`));
    // "<oid> <type> <size>\n<content>\n" per object.
    let offset = 0;
    while (offset < out.length) {
      const end = out.indexOf(0x0a, offset);
      if (end < 0) break;
      const [oid = "", type = "", size = ""] = out.subarray(offset, end).toString("utf8").split(" ");
      if (type === "missing" || !/^\d+$/.test(size)) throw new GitError(`git cat-file: ${oid} ${type}`, null);
      const start = end + 1;
      found.set(oid, out.subarray(start, start + Number(size)));
      offset = start + Number(size) + 1;
    }
    return found;
  }
}

/** The store of one project and its private index files. */
class OperationContext {
  readonly sharedIndex: string;

  constructor(
    readonly gitDir: string,
    readonly directory: string,
  ) {
    this.sharedIndex = path.join(gitDir, "index");
  }

  call(indexFile?: string, input?: string) {
    return { gitDir: this.gitDir, workTree: this.directory, ...(indexFile ? { indexFile } : {}), ...(input !== undefined ? { input } : {}) };
  }

  /**
   * A copy of the shared index (an empty index when there is none yet) for one operation.
   * The copy keeps the shared index's modification time: git trusts an entry whose size,
   * inode and times match the file unless the entry is as new as the index file ("racy
   * git"), so a copy dated now would hide a same-size change made in the second the index
   * was written (a restore then skipped the file, a snapshot missed it). Dates carry
   * milliseconds, so the copy is at most as new as the original: never less careful.
   */
  async privateIndex(): Promise<string> {
    const file = path.join(this.gitDir, `index.parley-${process.pid}-${randomBytes(6).toString("hex")}`);
    for (let attempt = 0; ; attempt++) {
      const before = await ifExists(fs.stat(this.sharedIndex));
      if (!before) return file;
      try {
        await fs.copyFile(this.sharedIndex, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        continue;
      }
      const after = await ifExists(fs.stat(this.sharedIndex));
      // Replaced while copied (another instance, by a rename): the copy's own time is not
      // known; copy again, or after a few tries date it at the epoch (every entry checked).
      const same = after !== undefined && after.ino === before.ino && after.mtimeMs === before.mtimeMs;
      if (!same && attempt < 3) continue;
      const time = same ? before.mtime : new Date(0);
      await fs.utimes(file, time, time);
      return file;
    }
  }
}

interface Changes {
  add: string[];
  drop: string[];
  /** The size of the files in `add`. */
  bytes: number;
}

/** Which file an index is: it is only ever replaced by a rename, so inode, size and mtime tell. */
async function indexKey(file: string): Promise<string | undefined> {
  const stat = await ifExists(fs.stat(file));
  return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}` : undefined;
}

/** The result, or undefined when the path does not exist (any other failure is thrown). */
async function ifExists<T>(operation: Promise<T>): Promise<T | undefined> {
  try {
    return await operation;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** A path relative to the project, as patches list them; anything else is refused. */
function assertRelative(file: string): void {
  const normalized = path.posix.normalize(file);
  if (file === "" || path.isAbsolute(file) || normalized !== file || normalized.startsWith("../") || normalized === "..") {
    throw new GitError(`refusing to restore a path outside the project: ${file}`, null);
  }
}

interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  file: string;
}

/** One line of `ls-tree -z`: "<mode> <type> <oid>\t<path>". */
function treeEntry(line: string): TreeEntry | undefined {
  const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(line);
  if (!match) return undefined;
  const [, mode = "", type = "", oid = "", file = ""] = match;
  return { mode, type, oid, file };
}

function safeName(id: string): string {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new GitError(`not a project id: ${id}`, null);
  return id;
}

function parseNumstat(output: Buffer): FileChange[] {
  // -z --numstat: "<added>\t<deleted>\t<path>\0" per file ("-" for binary files).
  const changes: FileChange[] = [];
  for (const entry of nulList(output)) {
    const match = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(entry);
    if (!match) continue;
    const [, added = "-", deleted = "-", file = ""] = match;
    changes.push({ file, additions: added === "-" ? 0 : Number(added), deletions: deleted === "-" ? 0 : Number(deleted) });
  }
  return changes.sort((a, b) => a.file.localeCompare(b.file));
}
