import { randomBytes } from "node:crypto";
import { mkdir, readdir, rename, stat } from "node:fs/promises";
import path from "node:path";
import { errorCode } from "../errno";
import { type WorkspaceRepo, removeWorkTree } from "./repo";
import { logger } from "../log";

const log = logger("workspace");

/**
 * Spare working trees (SPEC §15): a new session's workspace is mostly its checkout — a
 * project of 10,000 files is 10,000 files to write — so each project keeps `count` trees
 * checked out ahead at its base commit, in `<dataDir>/workspaces/<projectId>/spares/`,
 * named `<base commit>-<random>`. Making a workspace takes one by renaming it into place
 * (atomic: of instances sharing the data directory, one gets it), then `takeOver` puts it
 * on the session's branch; with none there, the tree is checked out as before. After each
 * workspace is made, the spares are refilled in the background.
 *
 * A spare is the server's alone: under the data directory, never bound into a sandbox, its
 * checkout made by the same `checkOut` a workspace's is (so its files are the base's, byte
 * for byte). One at another base (the branch moved) or left unfinished by a process that
 * died is removed by the next refill; a tree being made is named `.making-<random>` until
 * it is complete, so none is taken half made.
 */

/** A `.making-` folder older than this was left by a process that died (a checkout takes seconds). */
const ABANDONED_MS = 60 * 60 * 1000;

const MAKING = ".making-";
const TRASH = ".trash-";

export interface SpareSettings {
  dataDir: string;
  /** Spare trees per project (0: none are made or taken). */
  count: number;
}

const suffix = () => randomBytes(6).toString("hex");

export class Spares {
  private readonly filling = new Map<string, Promise<void>>();

  constructor(
    private readonly settings: SpareSettings,
    private readonly repo: () => WorkspaceRepo,
    private readonly folderOf: (projectId: string) => string,
  ) {}

  private folder(projectId: string): string {
    return path.join(this.folderOf(projectId), "spares");
  }

  /** Moves a spare tree of the project checked out at `base` to `dir` (which must not exist): whether there was one. */
  async take(projectId: string, base: string, dir: string): Promise<boolean> {
    if (this.settings.count === 0) return false;
    const folder = this.folder(projectId);
    const names = await readdir(folder).catch((error: unknown) => {
      if (errorCode(error) === "ENOENT") return [];
      throw error;
    });
    for (const name of names) {
      if (!name.startsWith(`${base}-`)) continue;
      try {
        await rename(path.join(folder, name), dir);
        return true;
      } catch (error) {
        // Taken by another session (or instance) meanwhile: the next one.
        if (errorCode(error) !== "ENOENT") throw error;
      }
    }
    return false;
  }

  /**
   * Brings the project's spares up to `count` trees at `base`, in the background (one
   * refill per project at a time in this process); a failure is logged, and the next
   * workspace is then checked out as it would be without spares.
   */
  refill(projectId: string, store: string, base: string): void {
    if (this.settings.count === 0 || this.filling.has(projectId)) return;
    const run = this.fill(projectId, store, base)
      .catch((error: unknown) => {
        log.error(`the spare trees of project ${projectId} could not be made: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => this.filling.delete(projectId));
    this.filling.set(projectId, run);
  }

  /** Removes the project's spares (the project is unregistered), once its refill under way has ended. */
  async forget(projectId: string): Promise<void> {
    await this.filling.get(projectId);
    const folder = this.folder(projectId);
    await trashAndRemove(folder, path.join(path.dirname(folder), `${TRASH}spares-${suffix()}`));
  }

  /** Resolves when the refills under way have ended (tests; shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.filling.values()]);
  }

  private async fill(projectId: string, store: string, base: string): Promise<void> {
    const folder = this.folder(projectId);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    let ready = 0;
    for (const name of await readdir(folder)) {
      if (name.startsWith(`${base}-`)) {
        ready++;
        continue;
      }
      const at = path.join(folder, name);
      if (name.startsWith(MAKING)) {
        const made = await stat(at).then(
          (s) => s.mtimeMs,
          () => undefined,
        );
        // Being made by another instance.
        if (made === undefined || Date.now() - made < ABANDONED_MS) continue;
      }
      await this.discard(folder, at);
    }
    while (ready < this.settings.count) {
      const making = path.join(folder, `${MAKING}${suffix()}`);
      await this.repo().checkOut(store, making, base);
      await rename(making, path.join(folder, `${base}-${suffix()}`));
      ready++;
    }
  }

  /** Removes a spare of another base (or an abandoned one): renamed first, so a `take` meanwhile finds nothing half removed. */
  private async discard(folder: string, at: string): Promise<void> {
    await trashAndRemove(at, path.join(folder, `${TRASH}${suffix()}`));
  }
}

/** Renames `at` to `trash` (nothing to do when it is gone), then removes it there: no one finds it half removed. */
async function trashAndRemove(at: string, trash: string): Promise<void> {
  try {
    await rename(at, trash);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  await removeWorkTree(trash);
}
