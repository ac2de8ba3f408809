import { lstat, rm } from "node:fs/promises";
import path from "node:path";
import { ProjectGit } from "./git";

/**
 * A project folder as a git repository: the server's git for the projects of a data
 * directory, and a registered folder made a repository (projects registered before
 * git-backed projects, or a folder an admin registers). No context of a member here: the
 * domain functions (project.ts) and the workspaces (server/workspace) both use it.
 */

const gits = new Map<string, ProjectGit>();
/** The server's git for projects of a data directory (one credential helper, one known-hosts file). */
export function projectGit(settings: { dataDir: string }): ProjectGit {
  let git = gits.get(settings.dataDir);
  if (!git) gits.set(settings.dataDir, (git = new ProjectGit(settings.dataDir)));
  return git;
}

/** The branch HEAD names (unborn or not), or null when HEAD is detached. */
export async function headBranch(git: ProjectGit, directory: string): Promise<string | null> {
  // symbolic-ref -q exits 1, silently, on a detached HEAD: the project then has no default branch yet.
  const out = await git.run(["symbolic-ref", "-q", "--short", "HEAD"], { cwd: directory, protocols: "", accept: [1] }, "Reading the current branch");
  return out.trim() || null;
}

/** Whether a project folder has a `.git` of its own (projects registered before git-backed projects may not). */
export async function isRepository(directory: string): Promise<boolean> {
  return lstat(path.join(directory, ".git")).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return false;
      throw error;
    },
  );
}

/** The folders this process is making repositories now. */
const adopting = new Map<string, Promise<string | null>>();

/**
 * Makes a registered folder a git repository without changing or losing anything: when it
 * has no `.git` of its own, `git init` (branch main) and one commit of every file its
 * `.gitignore` files do not ignore, as they are (no line-ending or other conversion).
 * Git writes only inside the new `.git`: no file of the folder is rewritten, moved or
 * removed, and ignored files stay where they are, uncommitted. A folder that is already
 * a repository is left as it is. Returns the branch HEAD names. Folders of one process
 * are made repositories one at a time (a second call finds the first's `.git`). `by`: the
 * first commit's author (Parley's when unset: a folder registered before projects were
 * repositories, made one when a session first needs a workspace of it).
 */
export function makeRepository(settings: { dataDir: string }, directory: string, by?: { name: string; email: string }): Promise<string | null> {
  const previous = adopting.get(directory) ?? Promise.resolve(null);
  const next = previous.catch(() => null).then(async () => {
    const git = projectGit(settings);
    if (await isRepository(directory)) return headBranch(git, directory);
    const call = { cwd: directory, protocols: "", ...(by ? { author: by } : {}) };
    try {
      await git.run(["init", "-q", "-b", "main"], call, "Making the folder a git repository");
      await git.run(["add", "-A"], call, "Adding the folder's files");
      await git.run(["commit", "-q", "--allow-empty", "--no-verify", "-m", "Initial commit (the folder as registered)"], call, "The first commit");
      // One pack instead of a loose object per file: every workspace checks out from it (about twice as fast).
      await git.run(["repack", "-a", "-d", "-q"], call, "Packing the first commit");
    } catch (error) {
      // The .git this call made holds nothing of the user's: remove it so nothing is half done.
      await rm(path.join(directory, ".git"), { recursive: true, force: true });
      throw error;
    }
    return "main";
  });
  adopting.set(directory, next);
  return next.finally(() => {
    if (adopting.get(directory) === next) adopting.delete(directory);
  });
}
