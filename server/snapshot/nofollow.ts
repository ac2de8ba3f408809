import { randomBytes } from "node:crypto";
import { constants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { type SandboxOwner, adoptPath } from "../sandbox/owner";
import { errorCode } from "../errno";

/**
 * Changing files inside a project without ever following a symlink out of it, even when
 * a process of the project (a bash command of another session) swaps a folder for a link
 * while the change runs.
 *
 * Every folder on the way is opened from the project's own folder one name at a time,
 * with `O_DIRECTORY | O_NOFOLLOW` (a link, or anything but a folder, is refused by the
 * kernel at that very open); each change is then made by name *in the opened folder*,
 * through `/proc/self/fd/<fd>/<name>` — the kernel resolves the `fd` part to the folder
 * that was opened, not to whatever its path names now, and `unlink`, `rmdir`, `rename`,
 * `mkdir`, `symlink` and `lchown` never follow the last name. A folder renamed away after
 * it was opened is still inside the project (a sandboxed process sees nothing else to
 * move it to), so nothing outside is ever written or deleted.
 */

/** A folder on the way kept changing (another process swapping or removing it at that moment): the restore gave up on it. */
export class PathChangingError extends Error {
  constructor(file: string, cause: unknown) {
    super(`${file} changed while it was restored (another process is changing it): try again`, { cause });
    this.name = "PathChangingError";
  }
}

/** What is at a name: nothing, a folder, a regular file (with its size) or something else (a link, a FIFO…). */
export type Entry = { kind: "none" } | { kind: "directory" } | { kind: "file"; size: number } | { kind: "other" };

const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** An error of a change made as another process changed the same names. */
function changedUnder(error: unknown): boolean {
  const c = errorCode(error);
  return c === "ENOENT" || c === "EISDIR" || c === "ENOTDIR" || c === "EEXIST" || c === "ENOTEMPTY";
}

/** Path of a name inside an opened folder. */
function at(handle: FileHandle, name: string): string {
  return `/proc/self/fd/${handle.fd}/${name}`;
}

async function entryAt(handle: FileHandle, name: string): Promise<Entry> {
  try {
    const stat = await fs.lstat(at(handle, name));
    if (stat.isDirectory()) return { kind: "directory" };
    if (stat.isFile()) return { kind: "file", size: stat.size };
    return { kind: "other" };
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "none" };
    throw error;
  }
}

/** The opened folders from the project down to one file's folder (the project's first). */
class Chain {
  constructor(
    readonly handles: FileHandle[],
    /** The names below the project, one per handle after the first. */
    readonly names: string[],
  ) {}

  get folder(): FileHandle {
    const last = this.handles[this.handles.length - 1];
    if (!last) throw new Error("an empty chain of folders");
    return last;
  }

  async close(): Promise<void> {
    for (const handle of this.handles) await handle.close();
  }
}

/** A project's folder, and the user the files the server puts into it belong to. */
export class ProjectFiles {
  constructor(
    readonly directory: string,
    readonly owner: SandboxOwner | undefined,
  ) {}

  /**
   * Open the folders of `dirs` (names below the project), one at a time without following
   * links. `create`: a missing folder is made (given to the owner), and a link (or
   * another special file) standing where a folder was is replaced by one, as git does —
   * a regular file there is kept and answers undefined; without `create`, a missing
   * folder or a link answers undefined (nothing is below it in the project).
   */
  private async open(dirs: string[], create: boolean): Promise<Chain | undefined> {
    // The project's own folder as registered (its real path: a link there is the server's choice, not a member's).
    const handles: FileHandle[] = [await fs.open(await fs.realpath(this.directory), DIRECTORY_FLAGS)];
    const chain = new Chain(handles, []);
    try {
      for (const name of dirs) {
        const handle = await this.openChild(chain, name, create);
        if (!handle) {
          await chain.close();
          return undefined;
        }
        handles.push(handle);
        chain.names.push(name);
      }
      return chain;
    } catch (error) {
      await chain.close();
      throw error;
    }
  }

  /**
   * Open one folder below the chain's last, without following a link (see `open`). Tried
   * again a few times when the name changes under it (another process making or swapping
   * it at that moment), then refused.
   */
  private async openChild(chain: Chain, name: string, create: boolean): Promise<FileHandle | undefined> {
    const parent = chain.folder;
    for (let attempt = 0; ; attempt++) {
      try {
        return await fs.open(at(parent, name), DIRECTORY_FLAGS);
      } catch (error) {
        const c = errorCode(error);
        // ELOOP: a link; ENOTDIR: a file or other entry; ENOENT: nothing.
        if (c !== "ELOOP" && c !== "ENOTDIR" && c !== "ENOENT") throw error;
        if (!create) return undefined;
        if (attempt >= 3) throw new PathChangingError(chain.names.concat(name).join("/"), error);
      }
      const entry = await entryAt(parent, name);
      // A regular file where a folder was is kept: nothing can be restored below it.
      if (entry.kind === "file") return undefined;
      try {
        if (entry.kind === "other") await fs.unlink(at(parent, name));
        if (entry.kind !== "directory") {
          await fs.mkdir(at(parent, name), 0o777);
          await adoptPath(this.owner, at(parent, name));
        }
      } catch (error) {
        // Made or removed by another process meanwhile: look again.
        const c = errorCode(error);
        if (c !== "EEXIST" && c !== "ENOENT" && c !== "EISDIR" && c !== "ENOTDIR" && c !== "ENOTEMPTY") throw error;
      }
    }
  }

  /**
   * Put a file (or a symlink, `link`) at `file`, replacing what is there unless it is a
   * folder (then false). Written under a temporary name and renamed into place: a hard
   * link at the old name is replaced, never written through.
   */
  async put(file: string, content: { data: Buffer; mode: number } | { link: string }): Promise<boolean> {
    const { dirs, name } = split(file);
    const chain = await this.open(dirs, true);
    if (!chain) return false;
    try {
      const folder = chain.folder;
      if ((await entryAt(folder, name)).kind === "directory") return false;
      const temporary = `.parley-restore-${randomBytes(6).toString("hex")}`;
      try {
        if ("link" in content) {
          await fs.symlink(content.link, at(folder, temporary));
        } else {
          const handle = await fs.open(at(folder, temporary), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, content.mode);
          try {
            await handle.writeFile(content.data);
          } finally {
            await handle.close();
          }
        }
        await adoptPath(this.owner, at(folder, temporary));
        await fs.rename(at(folder, temporary), at(folder, name));
      } catch (error) {
        await fs.rm(at(folder, temporary), { force: true });
        // The opened folder removed meanwhile, a folder made at the name (by another process): nothing was written.
        if (changedUnder(error)) throw new PathChangingError(file, error);
        throw error;
      }
      return true;
    } finally {
      await chain.close();
    }
  }

  /**
   * Delete `file` when `keep` does not say otherwise for what is there, then the folders
   * the deletion left empty, up to (not including) the project. A folder is never deleted
   * by name; a path below a link is not in the project and is left alone. True when
   * something was deleted.
   */
  async remove(file: string, keep: (entry: Entry) => boolean): Promise<boolean> {
    const { dirs, name } = split(file);
    const chain = await this.open(dirs, false);
    if (!chain) return false;
    try {
      const entry = await entryAt(chain.folder, name);
      if (entry.kind === "none" || entry.kind === "directory" || keep(entry)) return false;
      try {
        await fs.unlink(at(chain.folder, name));
      } catch (error) {
        // Already gone: as wanted.
        if (errorCode(error) === "ENOENT") return false;
        if (changedUnder(error)) throw new PathChangingError(file, error);
        throw error;
      }
      for (let level = chain.handles.length - 1; level > 0; level--) {
        const parent = chain.handles[level - 1];
        const child = chain.names[level - 1];
        if (!parent || child === undefined) break;
        try {
          await fs.rmdir(at(parent, child));
        } catch (error) {
          // Not empty (or replaced meanwhile by something that is not a folder): kept.
          const c = errorCode(error);
          if (c === "ENOTEMPTY" || c === "EEXIST" || c === "ENOTDIR" || c === "ENOENT") break;
          throw error;
        }
      }
      return true;
    } finally {
      await chain.close();
    }
  }
}

/** A path relative to the project (with `/`), as its folders and its name. */
function split(file: string): { dirs: string[]; name: string } {
  const parts = file.split("/");
  const name = parts.pop();
  if (!name || parts.some((p) => p === "" || p === "." || p === "..") || name === "." || name === "..") {
    throw new Error(`not a path inside the project: ${file}`);
  }
  return { dirs: parts, name };
}
