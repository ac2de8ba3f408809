import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import type { Db, Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { SandboxOwner } from "../sandbox/owner";
import type { Snapshots } from "../snapshot/snapshot";
import { makeRepository, projectGit } from "../project/project";
import type { ProjectGit } from "../project/git";

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

/** A workspace ready for tools: its working tree, and the object folders its `.git` borrows (bound read-only in the sandbox). */
export interface ReadyWorkspace {
  id: string;
  directory: string;
  objects: string[];
}

export interface WorkspaceSettings {
  dataDir: string;
  maxPerProject: number;
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

/**
 * Processes writing a new working tree's files (git's parallel checkout: each worker reads
 * the objects of its share of the files and writes them): one per core, at most 8. Below
 * 100 files git writes them itself. On 2 cores the checkout of a 10,000-file, 100 MB tree
 * (loose objects, borrowed through the store) takes ~0.6 s instead of ~0.8 s written by
 * one process (bench:workspace has the whole new workspace).
 */
const CHECKOUT_WORKERS = Math.min(8, availableParallelism());

const PREPARE_LOCK_CLASS = 0x77737063; // "wspc"

function lockKey(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (Math.imul(hash, 31) + id.charCodeAt(i)) | 0;
  return hash;
}

/** Where a fork's workspace comes from: the source's snapshot store (snapshotKey), its workspace, and its files at the fork point. */
export interface Fork {
  from: string;
  workspaceId: string | null;
  snapshot: string | null;
}

export class Workspaces {
  private readonly making = new Map<string, Promise<ReadyWorkspace>>();

  constructor(
    private readonly db: Db,
    private readonly settings: WorkspaceSettings,
    private readonly snapshots: Snapshots,
    private readonly owner: () => SandboxOwner | undefined,
  ) {}

  private get git(): ProjectGit {
    return projectGit(this.settings);
  }

  /**
   * The row of a new root session's workspace, inserted in `tx` (nothing is made on disk
   * yet). Refused (CONFLICT) when the project has `maxPerProject` live workspaces.
   */
  async plan(
    tx: Prisma.TransactionClient,
    input: { teamId: string; project: { id: string; defaultBranch: string | null }; slug: string; baseBranch?: string; fork?: Fork },
  ): Promise<WorkspaceRow> {
    const live = await tx.workspace.count({ where: { projectId: input.project.id, state: { not: "removed" } } });
    if (live >= this.settings.maxPerProject) {
      throw new ParleyError(
        "CONFLICT",
        `This project has ${live} live workspaces, the most it may have (limits.workspacesPerProject = ${this.settings.maxPerProject}): delete sessions you no longer need, or ask an admin to raise the cap.`,
      );
    }
    const id = Id.ascending("workspace");
    const source = input.fork?.workspaceId ? await tx.workspace.findUnique({ where: { id: input.fork.workspaceId } }) : null;
    return tx.workspace.create({
      data: {
        id,
        teamId: input.teamId,
        projectId: input.project.id,
        directory: path.join(projectFolder(this.settings.dataDir, input.project.id), id),
        branch: branchFor(input.slug, id),
        // A fork starts where its source started (then its files are the source's at the fork point).
        baseBranch: source?.baseBranch ?? input.baseBranch ?? input.project.defaultBranch ?? "HEAD",
        ...(source?.baseCommit ? { baseCommit: source.baseCommit } : {}),
        ...(input.fork ? { forkOf: input.fork.from, forkSnapshot: input.fork.snapshot } : {}),
      },
    });
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

  /** Starts making it without waiting (a prompt's first tool then finds it ready); a failure is the first tool's to report. */
  warm(id: string): void {
    this.ready(id).catch((error: unknown) => {
      console.error(`[workspace] ${id} could not be made: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  private objectsOf(row: WorkspaceRow, projectDirectory: string): string[] {
    return [path.join(storeOf(this.settings.dataDir, row.projectId), "objects"), path.join(projectDirectory, ".git", "objects")];
  }

  private async make(id: string): Promise<ReadyWorkspace> {
    const first = await this.db.workspace.findUnique({ where: { id }, include: { project: { select: { directory: true } } } });
    if (!first) throw new ParleyError("NOT_FOUND", `workspace ${id} not found`);
    if (first.state === "ready") return { id, directory: first.directory, objects: this.objectsOf(first, first.project.directory) };
    if (first.state === "removed") throw ParleyError.invalid("This session's workspace was removed.");
    return this.db.$transaction(
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${PREPARE_LOCK_CLASS}::int4, ${lockKey(id)}::int4)`;
        const row = await tx.workspace.findUnique({ where: { id }, include: { project: { select: { directory: true, defaultBranch: true, id: true } } } });
        if (!row) throw new ParleyError("NOT_FOUND", `workspace ${id} not found`);
        const ready = { id, directory: row.directory, objects: this.objectsOf(row, row.project.directory) };
        if (row.state === "ready") return ready;
        try {
          const made = await this.makeTree(row, row.project);
          await tx.workspace.update({ where: { id }, data: { state: "ready", error: null, baseCommit: made.base, headCommit: made.base } });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          await tx.workspace.update({ where: { id }, data: { state: "failed", error: message.slice(0, 2000) } });
          throw error instanceof ParleyError ? error : ParleyError.invalid(`The session's workspace could not be made: ${message}`);
        }
        return ready;
      },
      { timeout: 10 * 60 * 1000, maxWait: 60 * 1000 },
    );
  }

  /**
   * Makes the working tree: the project folder a repository (if it is not yet), the
   * store, then a new repository at `row.directory` borrowing the store's objects, on the
   * session's branch at the base commit. A fork's files are then the source's at the fork
   * point. On failure nothing stays behind (the folder and the store's branch go).
   */
  private async makeTree(row: WorkspaceRow, project: { id: string; directory: string }): Promise<{ base: string }> {
    const git = this.git;
    await makeRepository(this.settings, project.directory);
    const store = storeOf(this.settings.dataDir, row.projectId);
    await this.ensureStore(store, path.join(project.directory, ".git", "objects"));
    const base = row.baseCommit ?? (await this.resolveBase(project.directory, row.baseBranch));
    // Left over by an attempt that died: not a tree anyone used (the row was never ready).
    await rm(row.directory, { recursive: true, force: true });
    const branchRef = `refs/heads/${row.branch}`;
    let madeRef = false;
    try {
      const existing = (await git.run(["rev-parse", "-q", "--verify", branchRef], { cwd: store, protocols: "", accept: [1] }, "Reading the session branch")).trim();
      if (!existing) {
        await git.run(["update-ref", branchRef, base, ""], { cwd: store, protocols: "" }, "Making the session branch");
        madeRef = true;
      }
      await mkdir(path.dirname(row.directory), { recursive: true, mode: 0o711 });
      await mkdir(row.directory, { mode: 0o755 });
      const call = { cwd: row.directory, protocols: "" };
      await git.run(["init", "-q", "-b", row.branch], call, "Making the working tree");
      await writeFile(path.join(row.directory, ".git", "objects", "info", "alternates"), `${path.join(store, "objects")}\n`);
      await git.run(["-c", `checkout.workers=${CHECKOUT_WORKERS}`, "reset", "-q", "--hard", base], call, "Checking out the base");
      if (row.forkOf) await this.forkFiles(row, row.forkOf, row.forkSnapshot);
    } catch (error) {
      await rm(row.directory, { recursive: true, force: true });
      if (madeRef) {
        await git.run(["update-ref", "-d", branchRef, base], { cwd: store, protocols: "" }, "Removing the session branch").catch((cleanup: unknown) => {
          console.error(`[workspace] the branch ${row.branch} of a failed workspace stays: ${cleanup instanceof Error ? cleanup.message : String(cleanup)}`);
        });
      }
      throw error;
    }
    return { base };
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

  /** The project's store: a bare repository of the server's borrowing the project's objects (made once). */
  async ensureStore(store: string, projectObjects: string): Promise<void> {
    const exists = await lstat(path.join(store, "HEAD")).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return false;
        throw error;
      },
    );
    if (!exists) {
      // Closed like the data directory: other users of the host can neither list workspaces nor enter the store.
      await mkdir(path.dirname(store), { recursive: true, mode: 0o711 });
      await chmod(path.dirname(path.dirname(store)), 0o711);
      await chmod(path.dirname(store), 0o711);
      const temporary = `${store}.new-${randomBytes(4).toString("hex")}`;
      await this.git.run(["init", "-q", "--bare", temporary], { cwd: path.dirname(store), protocols: "" }, "Making the project's store");
      await chmod(temporary, 0o700);
      await writeFile(path.join(temporary, "objects", "info", "alternates"), `${projectObjects}\n`);
      await rename(temporary, store).catch(async (error: NodeJS.ErrnoException) => {
        await rm(temporary, { recursive: true, force: true });
        // Another instance made it meanwhile.
        if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
      });
    }
  }

  /** The base commit: the remote's branch when fetched (origin/<branch>), else the project's own; HEAD when named so. */
  async resolveBase(projectDirectory: string, branch: string): Promise<string> {
    const candidates = branch === "HEAD" ? ["HEAD"] : [`refs/remotes/origin/${branch}`, `refs/heads/${branch}`];
    for (const ref of candidates) {
      const sha = (await this.git.run(["rev-parse", "-q", "--verify", `${ref}^{commit}`], { cwd: projectDirectory, protocols: "", accept: [1] }, "Reading the base branch")).trim();
      if (sha) return sha;
    }
    throw ParleyError.invalid(`The project has no branch named ${branch} to start the session from.`);
  }

  /**
   * Removes a workspace's working tree (its children's rows point at it no more). Its
   * branch stays in the store unless it holds nothing of its own or was merged.
   */
  async remove(id: string): Promise<void> {
    const row = await this.db.workspace.findUnique({ where: { id } });
    if (!row || row.state === "removed") return;
    await rm(row.directory, { recursive: true, force: true });
    await this.snapshots.forget({ id: row.id, directory: row.directory });
    const store = storeOf(this.settings.dataDir, row.projectId);
    const tip = row.headCommit;
    const empty = tip !== null && tip === row.baseCommit;
    const merged = tip !== null && tip === row.mergedCommit;
    if (tip && (empty || merged)) {
      await this.git.run(["update-ref", "-d", `refs/heads/${row.branch}`, tip], { cwd: store, protocols: "" }, "Removing the session branch").catch((error: unknown) => {
        console.error(`[workspace] the branch ${row.branch} stays: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
    await this.db.workspace.update({ where: { id }, data: { state: "removed" } });
  }
}
