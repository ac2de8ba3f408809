import { spawnSync } from "node:child_process";
import type { ProgramResult, ProgramRunner } from "../process/helper";
import { findExecutable } from "../sandbox/host";

/**
 * Running the system `git` for snapshots, on the server's side (never in the sandbox: the
 * snapshot store lives in the data directory, which tools cannot see). Git reads no
 * system or user configuration, runs no hook and asks for nothing; every setting it uses
 * is given on the command line.
 */

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = "GitError";
  }
}

/** Settings every call gets (command-line config is "protected": the repository cannot override it). */
const CONFIG = [
  "core.hooksPath=/dev/null",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.quotepath=false",
  "core.fsmonitor=false",
  "core.symlinks=true",
  "core.untrackedCache=true",
  "core.splitIndex=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "advice.detachedHead=false",
  "safe.directory=*",
];

export interface GitCall {
  gitDir: string;
  workTree: string;
  /** The index this call reads and writes (each operation works on a private copy). */
  indexFile?: string;
  /** Written to git's standard input. */
  input?: string | Buffer;
}

export interface Git {
  /** The `git` executable. */
  path: string;
  version: string;
}

/** The system git, or the reason there is none. */
export function findGit(pathVariable = process.env.PATH): Git | { missing: string } {
  const found = findExecutable("git", pathVariable);
  if (!found) return { missing: "git is not installed (Debian/Ubuntu: apt-get install -y git)" };
  const probe = spawnSync(found, ["--version"], { encoding: "utf8", env: { NODE_ENV: process.env.NODE_ENV, ...baseEnv("/nonexistent") } });
  if (probe.status !== 0) return { missing: `git at ${found} does not run: ${(probe.stderr || probe.error?.message || "").trim()}` };
  return { path: found, version: probe.stdout.trim().replace(/^git version /, "") };
}

/** git's whole environment (nothing of the server's is passed on). */
function baseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    LANG: "C",
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_LITERAL_PATHSPECS: "1",
    GIT_AUTHOR_NAME: "Parley",
    GIT_AUTHOR_EMAIL: "parley@localhost",
    GIT_COMMITTER_NAME: "Parley",
    GIT_COMMITTER_EMAIL: "parley@localhost",
  };
}

/**
 * Run git through `runner` (the process helper: git is never forked from the server
 * itself); resolves with its standard output, rejects with GitError (its stderr) on a
 * non-zero exit or when it could not run.
 */
export async function runGit(git: Git, args: string[], call: GitCall, runner: ProgramRunner): Promise<Buffer> {
  const env = { ...baseEnv(call.gitDir), GIT_DIR: call.gitDir, GIT_WORK_TREE: call.workTree, ...(call.indexFile ? { GIT_INDEX_FILE: call.indexFile } : {}) };
  const argv = [...CONFIG.flatMap((setting) => ["-c", setting]), ...args];
  let result: ProgramResult;
  try {
    result = await runner.run({ file: git.path, args: argv, cwd: call.workTree, env, ...(call.input !== undefined ? { input: call.input } : {}) });
  } catch (error) {
    throw new GitError(`git ${args[0]}: ${error instanceof Error ? error.message : String(error)}`, null);
  }
  if (result.code === 0) return result.stdout;
  const stderr = result.stderr.toString("utf8").trim().split("\n").slice(0, 5).join("\n");
  throw new GitError(`git ${args[0]} failed (${result.code === null ? `signal ${result.signal}` : `exit ${result.code}`}): ${stderr}`, result.code);
}

/** NUL-separated output as a list (the last empty entry dropped). */
export function nulList(output: Buffer): string[] {
  const text = output.toString("utf8");
  if (text === "") return [];
  const items = text.split("\0");
  if (items[items.length - 1] === "") items.pop();
  return items;
}
