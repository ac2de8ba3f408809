import { chmod, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ParleyError } from "../errors";
import { type ProgramResult, type ProgramRunner, programHelper } from "../process/helper";
import { redactor } from "../secrets/redact";
import { type Git, findGit } from "../snapshot/git";

/**
 * The server's own git for projects (cloning, fetching, making a folder a repository), run
 * through the process helper — never in an agent's sandbox. Credentials reach git only
 * through this module: a token or password through a credential helper (a script holding no
 * secret that prints variables set in that one git process's environment, and only for the
 * remote's own protocol and host), a deploy key as a
 * 0600 file that exists only while that one git process runs. Never in a URL, argv, a
 * `.git/config` or any other file; every message git writes is redacted before it leaves.
 */

/**
 * What git may send: a user name and a token or password, only to `protocol://host` (the
 * remote's own; a redirect elsewhere gets nothing), or an ssh deploy key.
 */
export type Credential = { kind: "basic"; protocol: string; host: string; user: string; password: string } | { kind: "ssh-key"; key: string };

/**
 * git's credential helper (`get` only): answers with the user name and password of its
 * process's environment when git asks for exactly the remote's protocol and host, and
 * with nothing otherwise. It holds no secret itself.
 */
const CREDENTIAL_HELPER = `#!/bin/sh
[ "$1" = "get" ] || exit 0
protocol=""
host=""
while IFS= read -r line; do
  [ -z "$line" ] && break
  case "$line" in
    protocol=*) protocol="\${line#protocol=}" ;;
    host=*) host="\${line#host=}" ;;
  esac
done
if [ -n "$PARLEY_GIT_HOST" ] && [ "$protocol" = "$PARLEY_GIT_PROTOCOL" ] && [ "$host" = "$PARLEY_GIT_HOST" ]; then
  printf 'username=%s\npassword=%s\n' "$PARLEY_GIT_USERNAME" "$PARLEY_GIT_PASSWORD"
fi
`;

export interface ProjectGitCall {
  /** The folder git runs in (repository discovery stops there: never a parent's repository). */
  cwd: string;
  /** GIT_ALLOW_PROTOCOL: the transports this call may use. */
  protocols: string;
  credential?: Credential;
  /** The author of commits this call makes (the committer is Parley). */
  author?: { name: string; email: string };
  /** Exit codes besides 0 that are an answer, not a failure (symbolic-ref -q's 1: a detached HEAD). */
  accept?: number[];
  /**
   * Where git's repository, working tree, index and objects are, given explicitly (no
   * discovery from `cwd`). Only these variables: nothing can replace the credential or the
   * configuration settings this module sets.
   */
  env?: Partial<Record<RepositoryVariable, string>>;
  /** Written to git's standard input. */
  input?: string | Buffer;
}

/** The variables a call may add to git's environment. */
const REPOSITORY_VARIABLES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NO_REPLACE_OBJECTS", "GIT_LITERAL_PATHSPECS"] as const;
export type RepositoryVariable = (typeof REPOSITORY_VARIABLES)[number];

/**
 * Settings every call gets on the command line (they win over a repository's config, which
 * the agent can write in a project's folder, and reach git's own child processes): none of
 * the settings that make git run a program — hooks, fsmonitor, the alternate-refs command,
 * credential helpers, signing, submodules — can run one as the server.
 */
const CONFIG = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  // `true` prints no refs: a planted core.alternateRefsCommand would run during a fetch.
  "core.alternateRefsCommand=true",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "fetch.recurseSubmodules=false",
  "core.autocrlf=false",
  "core.symlinks=true",
  "credential.helper=",
  "safe.directory=*",
  "init.defaultBranch=main",
  "gc.auto=0",
  "maintenance.auto=false",
  "advice.detachedHead=false",
  "submodule.recurse=false",
  // A stalled remote ends the call instead of holding it for ever.
  "http.lowSpeedLimit=1000",
  "http.lowSpeedTime=60",
];

export class ProjectGit {
  private git: Git | undefined;
  private prepared: Promise<void> | undefined;
  private readonly base: string;

  /** `dataDir`: the server's data directory (the credential helper, known hosts and key files live below it). */
  constructor(
    dataDir: string,
    private readonly runner: ProgramRunner = programHelper(),
  ) {
    this.base = path.join(dataDir, "git");
  }

  private executable(): Git {
    if (this.git) return this.git;
    const found = findGit();
    if ("missing" in found) throw ParleyError.invalid(`Projects are git repositories, but ${found.missing}.`);
    this.git = found;
    return found;
  }

  private get helper(): string {
    return path.join(this.base, "credential-helper.sh");
  }

  /** The folder of this module's files, and the credential helper (it holds no secret). */
  private prepare(): Promise<void> {
    this.prepared ??= (async () => {
      await mkdir(path.join(this.base, "keys"), { recursive: true, mode: 0o700 });
      await chmod(this.base, 0o700);
      await writeFile(this.helper, CREDENTIAL_HELPER, { mode: 0o700 });
      await chmod(this.helper, 0o700);
      await sweep(path.join(this.base, "keys"));
      await sweep(path.join(this.base, "staging"));
    })().catch((error: unknown) => {
      this.prepared = undefined;
      throw error;
    });
    return this.prepared;
  }

  /** A new, empty folder of the server's own (mode 0700) for a fetch's staging repository. */
  async staging(): Promise<string> {
    await this.prepare();
    await mkdir(path.join(this.base, "staging"), { recursive: true, mode: 0o700 });
    return mkdtemp(path.join(this.base, "staging", "f-"));
  }

  /** Lets a bare repository borrow the objects of another (objects/info/alternates). */
  async alternates(bare: string, objects: string): Promise<void> {
    await writeFile(path.join(bare, "objects", "info", "alternates"), `${objects}\n`);
  }

  /**
   * Runs git; resolves with its standard output. A failure is INVALID with git's message,
   * the credential redacted from it (`what` says what was being done).
   */
  async run(args: string[], call: ProjectGitCall, what: string): Promise<string> {
    return (await this.exec(args, call, what)).stdout.toString("utf8");
  }

  /** As `run`, with git's exit code (0 or one of `call.accept`) and its output as bytes. */
  async exec(args: string[], call: ProjectGitCall, what: string): Promise<{ code: number; stdout: Buffer }> {
    const git = this.executable();
    await this.prepare();
    const secrets = call.credential ? [call.credential.kind === "basic" ? call.credential.password : call.credential.key] : [];
    const redact = redactor(secrets);
    let keyDir: string | undefined;
    try {
      const env = this.env(call);
      if (call.credential?.kind === "ssh-key") {
        keyDir = await mkdtemp(path.join(this.base, "keys", "k-"));
        const keyFile = path.join(keyDir, "id");
        const key = call.credential.key.endsWith("\n") ? call.credential.key : `${call.credential.key}\n`;
        await writeFile(keyFile, key, { mode: 0o600, flag: "wx" });
        env.GIT_SSH_COMMAND = this.sshCommand(keyFile);
      }
      // After CONFIG's empty credential.helper (which drops any other): only this server's helper answers.
      const helper = call.credential?.kind === "basic" ? ["-c", `credential.helper=!'${this.helper.replace(/'/g, "'\\''")}'`] : [];
      const argv = [...CONFIG.flatMap((setting) => ["-c", setting]), ...helper, ...args];
      let result: ProgramResult;
      try {
        result = await this.runner.run({ file: git.path, args: argv, cwd: call.cwd, env, ...(call.input === undefined ? {} : { input: call.input }) });
      } catch (error) {
        throw new ParleyError("INTERNAL", redact(`${what}: git could not run (${error instanceof Error ? error.message : String(error)})`));
      }
      if (result.code === 0 || (result.code !== null && call.accept?.includes(result.code))) return { code: result.code, stdout: result.stdout };
      const stderr = result.stderr.toString("utf8").trim().split("\n").filter((line) => line.trim() !== "").slice(-6).join("\n");
      throw ParleyError.invalid(redact(`${what} failed: ${explain(stderr)}`));
    } finally {
      if (keyDir) await rm(keyDir, { recursive: true, force: true });
    }
  }

  /** git's whole environment, built here alone (nothing of the server's is passed on). */
  private env(call: ProjectGitCall): Record<string, string> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: this.base,
      LANG: "C",
      LC_ALL: "C",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_TERMINAL_PROMPT: "0",
      GIT_ALLOW_PROTOCOL: call.protocols,
      GIT_CEILING_DIRECTORIES: path.dirname(call.cwd),
      // Even without a key: a repository's core.sshCommand never runs, ssh asks nothing.
      GIT_SSH_COMMAND: this.sshCommand(undefined),
      GIT_AUTHOR_NAME: call.author?.name ?? "Parley",
      GIT_AUTHOR_EMAIL: call.author?.email ?? "parley@localhost",
      GIT_COMMITTER_NAME: "Parley",
      GIT_COMMITTER_EMAIL: "parley@localhost",
    };
    for (const name of REPOSITORY_VARIABLES) {
      const value = call.env?.[name];
      if (value !== undefined) env[name] = value;
    }
    if (call.credential?.kind === "basic") {
      env.PARLEY_GIT_PROTOCOL = call.credential.protocol;
      env.PARLEY_GIT_HOST = call.credential.host;
      env.PARLEY_GIT_USERNAME = call.credential.user;
      env.PARLEY_GIT_PASSWORD = call.credential.password;
    }
    return env;
  }

  /** ssh for git: no user or system ssh configuration, this server's known hosts (first use accepted), no prompt. */
  private sshCommand(keyFile: string | undefined): string {
    const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;
    return [
      "ssh",
      "-F",
      "/dev/null",
      ...(keyFile ? ["-i", quote(keyFile), "-o", "IdentitiesOnly=yes"] : ["-o", "IdentitiesOnly=yes", "-o", "IdentityFile=none"]),
      "-o",
      "BatchMode=yes",
      "-o",
      "StrictHostKeyChecking=accept-new",
      "-o",
      `UserKnownHostsFile=${quote(path.join(this.base, "known_hosts"))}`,
      "-o",
      "GlobalKnownHostsFile=/dev/null",
      "-o",
      "ConnectTimeout=30",
    ].join(" ");
  }
}

/**
 * Key files and staging repositories are removed when their git call ends; a server killed
 * meanwhile leaves them behind. Removed at the next start once an hour old (other instances
 * sharing the data directory may be using newer ones).
 */
const LEFTOVER_MS = 60 * 60 * 1000;
async function sweep(dir: string): Promise<void> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  for (const name of names) {
    const full = path.join(dir, name);
    const stat = await lstat(full).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined; // another instance removed it meanwhile
      throw error;
    });
    if (stat && Date.now() - stat.mtimeMs > LEFTOVER_MS) await rm(full, { recursive: true, force: true });
  }
}

/** A clearer first line for the failures people meet. */
function explain(stderr: string): string {
  if (/Authentication failed|could not read (Username|Password)|terminal prompts disabled|HTTP Basic: Access denied|returned error: 40[13]/i.test(stderr)) {
    return `the remote refused the credentials (or asked for some): check the project's credential secret and user name.\n${stderr}`;
  }
  if (/Permission denied \(publickey/i.test(stderr)) return `the remote refused the deploy key: check the project's ssh-key secret.\n${stderr}`;
  return stderr;
}
