import { promises as fs } from "node:fs";
import path from "node:path";

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

function code(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

/** Give one path (never following a symlink at its end) to the owner; a path that is gone is fine. */
export async function adoptPath(owner: SandboxOwner | undefined, target: string): Promise<void> {
  if (!owner) return;
  try {
    await fs.lchown(target, owner.uid, owner.gid);
  } catch (error) {
    if (code(error) !== "ENOENT") throw error;
  }
}

/**
 * Give a whole tree to the owner: everything below `root`, then `root` itself — last, so
 * `owns(root)` means the walk is over (the sandbox starts no process of the owner in a tree
 * that is still being walked, where it could swap a folder for a link under the walk).
 * Symlinks are changed themselves and never followed. Entries removed during the walk are
 * skipped.
 */
export async function adoptTree(owner: SandboxOwner | undefined, root: string): Promise<void> {
  if (!owner) return;
  let level = [root];
  while (level.length > 0) {
    const next: string[] = [];
    for (const dir of level) {
      if (dir !== root) await adoptPath(owner, dir);
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (error) {
        const c = code(error);
        if (c === "ENOENT" || c === "ENOTDIR") continue;
        throw error;
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) next.push(full);
        else await adoptPath(owner, full);
      }
    }
    level = next;
  }
  await adoptPath(owner, root);
}

/** Whether `root` already belongs to the owner (then a tree needs no walk). */
export async function owns(owner: SandboxOwner | undefined, root: string): Promise<boolean> {
  if (!owner) return true;
  const stat = await fs.lstat(root);
  return stat.uid === owner.uid && stat.gid === owner.gid;
}
