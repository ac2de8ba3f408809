import { createHash } from "node:crypto";
import { lstat, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Db, Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { SandboxOwner } from "../sandbox/owner";
import type { Snapshots } from "../snapshot/snapshot";
import { makeRepository, projectGit } from "../project/repository";
import type { ProjectGit } from "../project/git";
import { WorkspaceRepo, removeWorkTree } from "./repo";
import { BaseCache, BaseFolders } from "./base-cache";
import { knownCommit, readHead, readRef, rememberCommit } from "./refs";
import { Spares } from "./spare";
import { logger } from "../log";

const log = logger("workspace");

/**
 * Session workspaces (SPEC §15): every root session works in a working tree of its own,
 * `<dataDir>/workspaces/<projectId>/<workspaceId>`, on its own branch
 * (`parley/<session slug>-<short id>`) started from the project's default branch. Its
 * children share it; a fork gets a new one holding the source's files at the fork point.
 *
 * Per project, a **store** — a bare repository of the server's, `…/<projectId>/store.git`,
 * borrowing the project folder's objects (objects/info/alternates) — holds the session
 * branches. A working tree is a repository of its own (its `.git` is the agent's to use:
 * commit, branch, reset) whose objects borrow the store's, so a checkout copies no object.
 * The sandbox binds the working tree writable and only the object folders of the store
 * and of the project read-only: no agent can move another session's branch, the
 * project's refs or the store's, and no credential is anywhere it can read.
 *
 * A working tree is made when the session first needs files (its first tool, a mention,
 * the file list), never on the streamed answer's path; instances sharing the data
 * directory make it once (a PostgreSQL advisory lock per workspace).
 */

export type WorkspaceState = "pending" | "ready" | "failed" | "removed";

export interface WorkspaceRow {
  id: string;
  teamId: string;
  projectId: string;
  directory: string;
  branch: string;
  baseBranch: string;
  baseCommit: string | null;
  state: string;
  error: string | null;
  headCommit: string | null;
  pushedCommit: string | null;
  mergedCommit: string | null;
  dirty: boolean;
  forkOf: string | null;
  forkSnapshot: string | null;
}

/** How many workspaces of a project are live (not removed). */
function liveWorkspaces(db: Prisma.TransactionClient, projectId: string): Promise<number> {
  return db.workspace.count({ where: { projectId, state: { not: "removed" } } });
}

/** A new workspace's row before it is written (Workspaces.planned). */
export type PlannedWorkspace = Pick<WorkspaceRow, "id" | "teamId" | "projectId" | "directory" | "branch" | "baseBranch">;

/** A workspace ready for tools: its working tree, and the object folders its `.git` borrows (bound read-only in the sandbox). */
export interface ReadyWorkspace {
  id: string;
  directory: string;
  objects: string[];
}

export interface WorkspaceSettings {
  dataDir: string;
  maxPerProject: number;
  /** Spare trees each project keeps checked out ahead (spare.ts); 0 = none. */
  spares: number;
}

/** Where a project's workspaces and store live. */
export function projectFolder(dataDir: string, projectId: string): string {
  return path.join(dataDir, "workspaces", projectId);
}
export function storeOf(dataDir: string, projectId: string): string {
  return path.join(projectFolder(dataDir, projectId), "store.git");
}

/** A branch name's session part: the session's slug. */
function branchFor(slug: string, id: string): string {
  return `parley/${slug}-${id.slice(-6)}`;
}

const PREPARE_LOCK_CLASS = 0x77737063; // "wspc"
const PROJECT_LOCK_CLASS = 0x77737072; // "wspr"

function lockKey(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (Math.imul(hash, 31) + id.charCodeAt(i)) | 0;
  return hash;
}

/** Which files of a base commit are read early: those below `folders` (paths, or "all") that `file` accepts. */
export interface BaseFileFilter {
  folders: string[] | "all";
  file: (file: string) => boolean;
}

async function isDirectory(target: string): Promise<boolean> {
  return lstat(target).then(
    (stat) => stat.isDirectory(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return false;
      throw error;
    },
  );
}

/** What reading a workspace's files needs of its row and its project's (Workspaces.files). */
export interface WorkspacePlace {
  state: string;
  directory: string;
  projectId: string;
  baseBranch: string;
  baseCommit: string | null;
  projectDirectory: string;
}

/**
 * The columns of a WorkspacePlace (prefixed `place_`), for a statement that reads a session
 * with its workspace `w` and the workspace's project `p` joined: the step reads its session
 * and where its files are in one statement (`placeOf` reads them back).
 */
export const PLACE_COLUMNS = Prisma.sql`w.state AS "place_state", w.directory AS "place_directory", w."projectId" AS "place_projectId",
  w."baseBranch" AS "place_baseBranch", w."baseCommit" AS "place_baseCommit", p.directory AS "place_projectDirectory"`;

/** The PLACE_COLUMNS of a row read with them: the place, or undefined without a workspace row. */
export function placeOf(row: PlaceColumns): WorkspacePlace | undefined {
  if (row.place_state === null || row.place_directory === null || row.place_projectId === null || row.place_baseBranch === null || row.place_projectDirectory === null) return undefined;
  return {
    state: row.place_state,
    directory: row.place_directory,
    projectId: row.place_projectId,
    baseBranch: row.place_baseBranch,
    baseCommit: row.place_baseCommit,
    projectDirectory: row.place_projectDirectory,
  };
}

/** The values of PLACE_COLUMNS (null when the join found no workspace). */
export interface PlaceColumns {
  place_state: string | null;
  place_directory: string | null;
  place_projectId: string | null;
  place_baseBranch: string | null;
  place_baseCommit: string | null;
  place_projectDirectory: string | null;
}

/** Reads of one workspace's files, sharing what they look up (Workspaces.files). */
export interface WorkspaceFiles {
  read<T>(want: BaseFileFilter, limit: number, read: (root: string, fixed?: string) => Promise<T>): Promise<T>;
}

/** A workspace whose tree is not made: its project, the project's store and the commit its files come from. */
interface BaseOf {
  projectId: string;
  store: string;
  base: string;
}

type FilesAt = { directory: string } | BaseOf;

/** Where a fork's workspace comes from: the source's snapshot store (snapshotKey), its workspace, and its files at the fork point. */
export interface Fork {
  from: string;
  workspaceId: string | null;
  snapshot: string | null;
}

export class Workspaces {
  private readonly making = new Map<string, Promise<ReadyWorkspace>>();
  /** What baseFiles read of base commits (which never change): each step of a session whose tree is not made reads it again. */
  private readonly baseCache = new BaseCache();
  private readonly baseFolders = new BaseFolders();
  /** The trees checked out ahead, which new workspaces take (spare.ts). */
  readonly spares: Spares;

  constructor(
    private readonly db: Db,
    private readonly settings: WorkspaceSettings,
    private readonly snapshots: Snapshots,
    private readonly owner: () => SandboxOwner | undefined,
  ) {
    this.spares = new Spares({ dataDir: settings.dataDir, count: settings.spares }, () => this.repo, (projectId) => projectFolder(settings.dataDir, projectId));
  }

  /** The server's own git (server/project/git.ts). */
  get git(): ProjectGit {
    return projectGit(this.settings);
  }

  /** The git of workspaces and the project's store (repo.ts). */
  get repo(): WorkspaceRepo {
    return new WorkspaceRepo(this.git);
  }

  /**
   * The row of a new root session's workspace, inserted in `tx` (nothing is made on disk
   * yet). Refused (CONFLICT) when the project has `maxPerProject` live workspaces.
   */
  async plan(
    tx: Prisma.TransactionClient,
    input: { teamId: string; project: { id: string; defaultBranch: string | null }; slug: string; baseBranch?: string; fork?: Fork },
  ): Promise<WorkspaceRow> {
    const live = await liveWorkspaces(tx, input.project.id);
    if (live >= this.settings.maxPerProject) throw this.capReached(live);
    const source = input.fork?.workspaceId ? await tx.workspace.findUnique({ where: { id: input.fork.workspaceId } }) : null;
    return tx.workspace.create({
      data: {
        // A fork starts where its source started (then its files are the source's at the fork point).
        ...this.planned({ ...input, ...(source ? { baseBranch: source.baseBranch } : {}) }),
        ...(source?.baseCommit ? { baseCommit: source.baseCommit } : {}),
        ...(input.fork ? { forkOf: input.fork.from, forkSnapshot: input.fork.snapshot } : {}),
      },
    });
  }

  /**
   * A new workspace's row, planned (nothing is written or made): its id, folder, branch and
   * base branch (the one asked for, else the project's default branch, else its HEAD).
   * `plan` writes it in a transaction; a new root session writes it with the session in
   * one statement (session.ts), capped there by `maxPerProject`.
   */
  planned(input: { teamId: string; project: { id: string; defaultBranch: string | null }; slug: string; baseBranch?: string }): PlannedWorkspace {
    const id = Id.ascending("workspace");
    return {
      id,
      teamId: input.teamId,
      projectId: input.project.id,
      directory: path.join(projectFolder(this.settings.dataDir, input.project.id), id),
      branch: branchFor(input.slug, id),
      baseBranch: input.baseBranch ?? input.project.defaultBranch ?? "HEAD",
    };
  }

  /** Live workspaces a project may have (`limits.workspacesPerProject`). */
  get maxPerProject(): number {
    return this.settings.maxPerProject;
  }

  /** The error of a project at its cap of live workspaces, naming how many it has. */
  async capError(projectId: string): Promise<ParleyError> {
    return this.capReached(await liveWorkspaces(this.db, projectId));
  }

  private capReached(live: number): ParleyError {
    return new ParleyError(
      "CONFLICT",
      `This project has ${live} live workspaces, the most it may have (limits.workspacesPerProject = ${this.settings.maxPerProject}): delete sessions you no longer need, or ask an admin to raise the cap.`,
    );
  }

  /** Refuses (INVALID) a branch the project does not have, before a session is made to start from it. */
  async checkBranch(project: { directory: string }, branch: string): Promise<void> {
    await makeRepository(this.settings, project.directory);
    await this.resolveBase(project.directory, branch);
  }

  /** The workspace made (once, whichever instance asks first), for tools. */
  ready(id: string): Promise<ReadyWorkspace> {
    let making = this.making.get(id);
    if (!making) {
      making = this.make(id).finally(() => this.making.delete(id));
      this.making.set(id, making);
    }
    return making;
  }

  /** Whether the working tree is made (nothing is waited for or made). */
  async isReady(id: string): Promise<boolean> {
    const row = await this.db.workspace.findUnique({ where: { id }, select: { state: true } });
    return row?.state === "ready";
  }

  /**
   * A few files of the workspace's base commit, before its tree is made: those of its paths
   * `wanted` accepts (regular files only, at most `limit`), in a folder of the server's
   * (BaseFolders: made once for the same files, shared by readers; `cleanup` when done). The first step of a new session reads its rule
   * files from them — the same bytes its tree will hold — instead of waiting for the whole
   * checkout (a registered folder's first session makes the project a repository first).
   */
  private async baseFiles(at: BaseOf, want: BaseFileFilter, limit: number): Promise<{ dir: string; key: string; cleanup: () => Promise<void> }> {
    const { projectId, store, base } = at;
    const call = { cwd: store, protocols: "", env: { GIT_DIR: store, GIT_LITERAL_PATHSPECS: "1" } };
    // Only below the folders asked for: a whole 10,000-file tree is not listed for three names.
    const where = want.folders === "all" ? [] : ["--", ...want.folders];
    const listed = await this.baseCache.listing(`${store}\0${base}\0${where.join("\0")}`, async () => (await this.git.run(["ls-tree", "-r", "-z", "--full-tree", base, ...where], call, "Listing the base's files")).split("\0"));
    const files: { mode: string; oid: string; file: string }[] = [];
    for (const line of listed) {
      const match = /^(\d{6}) blob ([0-9a-f]{40,64})\t(.+)$/s.exec(line);
      if (!match?.[1] || !match[2] || !match[3]) continue;
      // Only a path git itself would check out: no empty, `.` or `..` part, no `.git` folder.
      const parts = match[3].split("/");
      const plain = parts.every((part) => part !== "" && part !== "." && part !== ".." && part.toLowerCase() !== ".git");
      if (plain && (match[1] === "100644" || match[1] === "100755") && want.file(match[3])) files.push({ mode: match[1], oid: match[2], file: match[3] });
      if (files.length >= limit) break;
    }
    const remove = (dir: string) => rm(dir, { recursive: true, force: true });
    const make = async () => {
      const dir = await mkdtemp(path.join(projectFolder(this.settings.dataDir, projectId), "base-"));
      try {
        for (const entry of files) {
          const data = await this.baseCache.blob(`${store}\0${entry.oid}`, async () => (await this.git.exec(["cat-file", "blob", entry.oid], call, "Reading the base's files")).stdout);
          const target = path.join(dir, entry.file);
          await mkdir(path.dirname(target), { recursive: true });
          await writeFile(target, data, { flag: "wx" });
        }
      } catch (error) {
        await remove(dir);
        throw error;
      }
      return dir;
    };
    // The same files (by path, mode and object id) are one folder, made once and shared.
    const key = createHash("sha256").update(store).update("\0").update(files.map((f) => `${f.mode} ${f.oid} ${f.file}`).join("\0")).digest("hex");
    const folder = await this.baseFolders.use(key, make, remove);
    return { dir: folder.dir, key, cleanup: folder.release };
  }

  /**
   * Reads files of a session's workspace with `read(root)` without making its tree: when
   * the tree is made, from it; until then, from the files of its base commit `wanted`
   * accepts (baseFiles — the same bytes the tree will hold; `read` gets the folder's key
   * too, as they never change). A removed workspace is refused as `ready` refuses it.
   */
  readFiles<T>(id: string, want: BaseFileFilter, limit: number, read: (root: string, fixed?: string) => Promise<T>): Promise<T> {
    return this.files(id).read(want, limit, read);
  }

  /**
   * `readFiles` for the readers of one step (its agent files, its rule files): the
   * workspace's row, and its base commit while its tree is not made, are read once for all
   * of them, at the first read (`known`: the row as the caller just read it, with its
   * session — PLACE_COLUMNS). A tree made meanwhile is read from the base still (the same
   * bytes).
   */
  files(id: string, known?: WorkspacePlace): WorkspaceFiles {
    let where: Promise<FilesAt> | undefined;
    return {
      read: async (want, limit, read) => {
        const at = await (where ??= this.filesAt(id, known));
        if ("directory" in at) return read(at.directory);
        const early = await this.baseFiles(at, want, limit);
        try {
          // These files never change: `fixed` (the folder's key, naming what it holds) lets the reader keep what it read of them.
          return await read(early.dir, early.key);
        } finally {
          await early.cleanup();
        }
      },
    };
  }

  /** Where a workspace's files are read from: its tree when made (or when it is gone: `ready` says why), else its base commit in the project's store. */
  private async filesAt(id: string, known?: WorkspacePlace): Promise<FilesAt> {
    const found = known ?? (await this.place(id));
    if (found?.state === "ready") return { directory: found.directory };
    if (!found || found.state === "removed") return { directory: (await this.ready(id)).directory };
    const project = { id: found.projectId, directory: found.projectDirectory };
    const store = storeOf(this.settings.dataDir, project.id);
    // Made already by an earlier workspace of the project (the usual case): no lock to wait for.
    // A registered folder's first session makes the project a repository here (its store too).
    if (!(await isDirectory(path.join(store, "objects")))) await this.prepareProject(project, store);
    return { projectId: project.id, store, base: found.baseCommit ?? (await this.resolveBase(project.directory, found.baseBranch)) };
  }

  /** A workspace's place, in one statement (Prisma's include reads the project in a second one). */
  private async place(id: string): Promise<WorkspacePlace | undefined> {
    const [row] = await this.db.$queryRaw<PlaceColumns[]>`
      SELECT ${PLACE_COLUMNS} FROM "Workspace" w JOIN "Project" p ON p.id = w."projectId" WHERE w.id = ${id}`;
    return row ? placeOf(row) : undefined;
  }

  /** Starts making it without waiting (a prompt's first tool then finds it ready); a failure is the first tool's to report. */
  warm(id: string): void {
    this.ready(id).catch((error: unknown) => {
      log.error(`${id} could not be made: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  private objectsOf(row: WorkspaceRow, projectDirectory: string): string[] {
    return [path.join(storeOf(this.settings.dataDir, row.projectId), "objects"), path.join(projectDirectory, ".git", "objects")];
  }

  private async make(id: string): Promise<ReadyWorkspace> {
    const first = await this.db.workspace.findUnique({ where: { id }, include: { project: { select: { id: true, directory: true } } } });
    if (!first) throw new ParleyError("NOT_FOUND", `workspace ${id} not found`);
    if (first.state === "ready") return { id, directory: first.directory, objects: this.objectsOf(first, first.project.directory) };
    if (first.state === "removed") throw ParleyError.invalid("This session's workspace was removed.");
    try {
      // The project's part first, in a transaction of its own (one connection at a time per
      // make) — once: a store that exists was made from a repository.
      const store = storeOf(this.settings.dataDir, first.projectId);
      if (!(await isDirectory(path.join(store, "objects")))) await this.prepareProject(first.project, store);
      return await this.db.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(${PREPARE_LOCK_CLASS}::int4, ${lockKey(id)}::int4)`;
          const row = await tx.workspace.findUnique({ where: { id }, include: { project: { select: { directory: true, id: true } } } });
          if (!row) throw new ParleyError("NOT_FOUND", `workspace ${id} not found`);
          const ready = { id, directory: row.directory, objects: this.objectsOf(row, row.project.directory) };
          if (row.state === "ready") return ready;
          if (row.state === "removed") throw ParleyError.invalid("This session's workspace was removed.");
          const made = await this.makeTree(row);
          await tx.workspace.update({ where: { id }, data: { state: "ready", error: null, baseCommit: made.base, headCommit: made.base } });
          return ready;
        },
        { timeout: 10 * 60 * 1000, maxWait: 60 * 1000 },
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Kept for the status line; the next tool that needs files tries again.
      await this.db.workspace.updateMany({ where: { id, state: { in: ["pending", "failed"] } }, data: { state: "failed", error: message.slice(0, 2000) } });
      throw error instanceof ParleyError ? error : ParleyError.invalid(`The session's workspace could not be made: ${message}`);
    }
  }

  /**
   * Makes the working tree (the project folder is a repository and its store exists:
   * prepareProject), then the working tree on the session's branch at the base commit (repo.ts). A
   * fork's files are then the source's at the fork point. On failure nothing stays behind
   * (the folder and the store's branch go).
   */
  private async makeTree(row: WorkspaceRow & { project: { directory: string } }): Promise<{ base: string }> {
    const store = storeOf(this.settings.dataDir, row.projectId);
    const base = row.baseCommit ?? (await this.resolveBase(row.project.directory, row.baseBranch));
    // Left by an attempt that died midway (the row never became ready): nobody used them.
    await removeWorkTree(row.directory);
    const read = await readRef(store, `refs/heads/${row.branch}`);
    const left = read === null ? "" : (read ?? (await this.git.run(["rev-parse", "-q", "--verify", `refs/heads/${row.branch}`], { cwd: store, protocols: "", accept: [1], env: { GIT_DIR: store } }, "Reading the session branch")).trim());
    // Made by an attempt that never finished (the row is not ready, so nothing was committed on it): gone, wherever it points.
    if (left) await this.repo.deleteBranch(store, row.branch, left);
    await mkdir(path.dirname(row.directory), { recursive: true, mode: 0o700 });
    // Not given to the sandbox's user here: its first command does that (sandbox.ts, as for any
    // folder it does not own yet), so a new tree costs only its checkout. File tools write as that user already.
    const tree = { branch: row.branch, base, workspace: row.id };
    // A spare checked out ahead at this base, else a checkout now; then the next spare, in the background.
    if (await this.spares.take(row.projectId, base, row.directory)) await this.repo.takeOver(store, row.directory, tree);
    else await this.repo.createWorkTree(store, row.directory, tree);
    this.spares.refill(row.projectId, store, base);
    if (row.forkOf) {
      try {
        await this.forkFiles(row, row.forkOf, row.forkSnapshot);
      } catch (error) {
        await removeWorkTree(row.directory);
        await this.repo.deleteBranch(store, row.branch, base);
        throw error;
      }
    }
    return { base };
  }

  /**
   * The project's folder a repository and its store made, once: every instance making a
   * workspace of the project at the same moment waits for the first (a lock per project,
   * held only for this — the working trees themselves are made side by side).
   */
  private async prepareProject(project: { id: string; directory: string }, store: string): Promise<void> {
    await this.db.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${PROJECT_LOCK_CLASS}::int4, ${lockKey(project.id)}::int4)`;
        await makeRepository(this.settings, project.directory);
        await this.repo.ensureStore(store, path.join(project.directory, ".git"));
      },
      { timeout: 10 * 60 * 1000, maxWait: 60 * 1000 },
    );
  }

  /** A fork's files: the source's snapshot store lends its objects, and every file differing from the base is put as it was at the fork point. */
  private async forkFiles(row: WorkspaceRow, sourceKey: string, snapshot: string | null): Promise<void> {
    const scope = { id: row.id, directory: row.directory };
    await this.snapshots.inherit(scope, sourceKey);
    if (!snapshot) return;
    const now = await this.snapshots.track(scope);
    const files = await this.snapshots.changed(scope, now, snapshot);
    if (files.length) await this.snapshots.restore(scope, snapshot, files, this.owner());
  }

  /** The base commit: the remote's branch when fetched (origin/<branch>), else the project's own; the project's HEAD when it has no branch. */
  async resolveBase(projectDirectory: string, branch: string): Promise<string> {
    if (branch !== "HEAD") return this.repo.resolveBase(projectDirectory, branch);
    const gitDir = path.join(projectDirectory, ".git");
    // Read directly when sure (refs.ts): no process per prompt for a HEAD at a commit git named before.
    const objects = path.join(gitDir, "objects");
    const known = await readHead(gitDir);
    if (known !== undefined && knownCommit(objects, known)) return known;
    const sha = (await this.git.run(["rev-parse", "-q", "--verify", "HEAD^{commit}"], { cwd: gitDir, protocols: "", accept: [1], env: { GIT_DIR: gitDir } }, "Reading the project's HEAD")).trim();
    if (!sha) throw ParleyError.invalid("The project's repository has no commit to start the session from.");
    rememberCommit(objects, sha);
    return sha;
  }

  /**
   * Removes a workspace's working tree and what the server kept for it (its index and
   * private objects in the store, its snapshots). Its branch stays in the store when it
   * holds commits of its own that were not merged, unless `deleteBranch` asks otherwise.
   */
  async remove(id: string, options: { deleteBranch?: boolean } = {}): Promise<void> {
    const row = await this.db.workspace.findUnique({ where: { id } });
    if (!row || row.state === "removed") return;
    const store = storeOf(this.settings.dataDir, row.projectId);
    await removeWorkTree(row.directory);
    await this.snapshots.forget({ id: row.id, directory: row.directory });
    const repo = this.repo;
    const tip = row.headCommit;
    if (row.state === "ready" && tip) {
      const empty = tip === row.baseCommit;
      const merged = tip === row.mergedCommit;
      if (empty || merged || options.deleteBranch) {
        await repo.deleteBranch(store, row.branch, tip).catch((error: unknown) => {
          // Moved by someone else meanwhile: it is not ours to delete.
          log.error(`the branch ${row.branch} stays: ${error instanceof Error ? error.message : String(error)}`);
        });
      }
      await repo.forgetWorkspace(store, row.id);
    }
    await this.db.workspace.update({ where: { id }, data: { state: "removed" } });
  }
}
