import { constants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { errorCode } from "../errno";
import { type ProgramRunner, programHelper } from "../process/helper";
import { findExecutable } from "./host";
import { logger } from "../log";

const log = logger("sandbox");

/**
 * Who owns a workspace's files when the server runs as root: the sandbox's own
 * unprivileged uid/gid (README "Security model"). Sandboxed processes run as that user,
 * so the files they must change — the workspace, and whatever the server writes into it
 * on the agent's behalf (file tools, snapshot restores) — belong to it. `undefined`: the
 * server is not root (every process already runs as the server's user) or the sandbox is
 * off; then nothing is changed.
 */
export interface SandboxOwner {
  uid: number;
  gid: number;
}

/** Give one path (never following a symlink at its end) to the owner; a path that is gone is fine. */
export async function adoptPath(owner: SandboxOwner | undefined, target: string): Promise<void> {
  if (!owner) return;
  try {
    await fs.lchown(target, owner.uid, owner.gid);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
}

/** Opening a folder without following a link at its name. */
export const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens the folder at `at` without following a link at its name: its handle, "gone" when
 * nothing is there (any more), "not-folder" when it is a file, a link, a pipe…
 */
export async function openFolder(at: string): Promise<FileHandle | "gone" | "not-folder"> {
  try {
    return await fs.open(at, DIRECTORY_FLAGS);
  } catch (error) {
    const c = errorCode(error);
    if (c === "ENOENT") return "gone";
    if (c === "ENOTDIR" || c === "ELOOP") return "not-folder";
    throw error;
  }
}

/**
 * Give a whole tree to the owner: everything below `root`, then `root` itself — last, so
 * `owns(root)` means the walk is over. The walk never follows a link: each folder is
 * opened with `O_NOFOLLOW` by name inside its already opened parent
 * (`/proc/self/fd/<fd>/<name>`), listed through its own descriptor, and its entries are
 * changed by name inside it (`lchown` never follows the last name), so a folder swapped
 * for a link meanwhile cannot lead the walk anywhere else. A file with more than one hard
 * link keeps its owner (another of its names may lie outside the tree). Entries removed
 * during the walk are skipped.
 */
export async function adoptTree(owner: SandboxOwner | undefined, root: string): Promise<void> {
  if (!owner) return;
  const handle = await openFolder(await fs.realpath(root));
  if (typeof handle === "string") return;
  try {
    await adoptBelow(owner, handle);
    await handle.chown(owner.uid, owner.gid);
  } finally {
    await handle.close();
  }
}

async function adoptBelow(owner: SandboxOwner, folder: FileHandle): Promise<void> {
  const here = `/proc/self/fd/${folder.fd}`;
  let names: string[];
  try {
    names = await fs.readdir(here);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  for (const name of names) {
    const at = `${here}/${name}`;
    const child = await openFolder(at);
    if (child === "gone") continue;
    // Not a folder (a file, a link, a pipe…): changed by name below, never followed.
    if (child !== "not-folder") {
      try {
        await adoptBelow(owner, child);
        await child.chown(owner.uid, owner.gid);
      } finally {
        await child.close();
      }
      continue;
    }
    try {
      const stat = await fs.lstat(at);
      if (!stat.isDirectory() && stat.nlink > 1) continue;
      await fs.lchown(at, owner.uid, owner.gid);
    } catch (error) {
      if (errorCode(error) !== "ENOENT") throw error;
    }
  }
}

/** Whether `root` already belongs to the owner (then a tree needs no walk). */
export async function owns(owner: SandboxOwner | undefined, root: string): Promise<boolean> {
  if (!owner) return true;
  const stat = await fs.lstat(root);
  return stat.uid === owner.uid && stat.gid === owner.gid;
}

/**
 * Give a tree that no one but the server can reach yet — a working tree it has just made,
 * before any sandbox sees it — to the owner in one `chown -R -P -h` (no link followed,
 * none can be swapped in meanwhile): much faster than `adoptTree`'s careful walk, which
 * is for trees a sandboxed process may be changing. Falls back to that walk when `chown`
 * is missing or fails.
 */
export async function adoptNewTree(owner: SandboxOwner | undefined, root: string, runner: ProgramRunner = programHelper()): Promise<void> {
  if (!owner) return;
  const chown = findExecutable("chown", process.env.PATH);
  if (chown) {
    const result = await runner.run({ file: chown, args: ["-R", "-P", "-h", `${owner.uid}:${owner.gid}`, "--", root], cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" } });
    if (result.code === 0) return;
    log.error(`chown of ${root} failed (${result.stderr.toString("utf8").trim().slice(0, 300)}): giving it file by file`);
  }
  await adoptTree(owner, root);
}
