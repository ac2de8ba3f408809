import { type ChildProcess, type ChildProcessByStdio, spawn } from "node:child_process";
import { promises as fs, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { type HostLayout, bwrapArgs } from "./bwrap";
import { isInside } from "../inside";
import { type CallCgroups, Cgroups, JOIN_SCRIPT } from "./cgroup";
import { findExecutable, hostLayout } from "./host";
import { DEFAULT_MOUNT_BASE, MOUNT_SCRIPT, MountPoints } from "./mounts";
import { type SandboxOwner, adoptTree, owns } from "./owner";
import { seccompFilter } from "./seccomp";
import type { SandboxSettings } from "./settings";
import { logger } from "../log";

const log = logger("sandbox");

/**
 * Where the agent's processes run (README "Security model"). Every process a tool starts
 * — `bash`, and helpers such as ripgrep — goes through `Sandbox.spawn`: in bubblewrap
 * (layout in bwrap.ts) under a seccomp filter (seccomp.ts), with resource limits, as one
 * unit that is killed whole. When no sandbox can run here, spawning is refused with a
 * message that names the missing piece, unless the operator set the sandbox `off`.
 *
 * Never as root: when the server runs as root, each call joins its cgroups, makes a mount
 * namespace of its own where root binds the call's paths onto fixed mount points
 * (mounts.ts), then drops to the sandbox's unprivileged uid/gid with `setpriv`, and only
 * then starts bwrap, which makes its user namespace as that user (inside uid = host uid).
 * The workspace belongs to that user (owner.ts): a project is given to it on first use.
 * When the server is not root, bwrap runs as the server's own user.
 */

/** How a root server becomes the sandbox's user before bwrap starts. */
interface Drop {
  uid: number;
  gid: number;
  setpriv: string;
  unshare: string;
  mount: string;
  points: MountPoints;
}

export type SandboxState =
  | { kind: "bwrap"; bwrap: string; host: HostLayout; cgroups: Cgroups | undefined; seccomp: Buffer; drop: Drop | undefined }
  | { kind: "off" }
  | { kind: "unavailable"; reason: string };

export interface SandboxOptions {
  /** Where a root server keeps the mount points of its calls (default /run/parley-sandbox): root's, reachable by all. */
  mountBase?: string;
}

export interface ProcessSpec {
  /** Program and arguments; the program is looked up on the sandbox's PATH. */
  argv: string[];
  /** The project directory: bound read-write, and the working directory unless `cwd` says otherwise. */
  project: string;
  cwd?: string;
  /** Other paths the process may read (a session's saved outputs). */
  readable?: string[];
  /** Other paths the process may change (a directory outside the project an admin's policy allows). */
  writable?: string[];
  /** A long-lived process that reads its standard input (a local tool server): a pipe instead of nothing. */
  stdin?: "pipe";
  /** Variables added to the confined environment (a local tool server's configured secrets); never the server's own. */
  env?: Record<string, string>;
  /** The project is bound read-only (a local tool server, unless its configuration lets it write). */
  readOnlyProject?: boolean;
  /** The network, when it differs from the operator's sandbox setting (a local tool server's own). */
  network?: "none" | "allow";
}

export type Child = ChildProcessByStdio<Writable | null, Readable, Readable>;

export interface SandboxProcess {
  readonly child: Child;
  /** Whether the process runs confined (false only when the operator turned the sandbox off). */
  readonly confined: boolean;
  /** End every process of the call at once. */
  kill(): void;
  /** Ask the processes to stop, then kill what is left after `graceMs` (confined: at once). */
  terminate(graceMs: number): void;
  /** Resolves once the process has exited (and, unconfined, what was left of its group is killed). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** No sandbox can run here and the operator did not turn it off: the tool is refused. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

/** What bwrap itself runs with: nothing of the server's environment. */
const NO_ENV = {} as NodeJS.ProcessEnv;

/** The file descriptor of the child the seccomp program is written to. */
const SECCOMP_FD = 3;

function isChild(child: ChildProcess): child is Child {
  return child.stdout !== null && child.stderr !== null;
}

/** The environment of a confined process: never the server's own (no secrets). */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
function confinedEnv(): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: "/tmp", TMPDIR: "/tmp", LANG: "C.UTF-8", TERM: "dumb", PAGER: "cat", GIT_PAGER: "cat" };
}

/** Unconfined (sandbox off): the server's environment without its secrets. */
const SECRET = /^(DATABASE_URL|PARLEY_.*|OPENAI_.*|.*_API_KEY|.*_SECRET|.*_TOKEN|.*PASSWORD.*|.*_KEY)$/i;
export function commandEnvironment<T extends Record<string, string | undefined>>(env: T): T {
  const out = { ...env };
  for (const key of Object.keys(out)) if (SECRET.test(key)) Reflect.deleteProperty(out, key);
  return out;
}

/** Resource limits set inside the sandbox before the program starts (hard = soft, so they cannot be raised). */
function limitScript(settings: SandboxSettings, withNproc: boolean): string {
  const l = settings.limits;
  const lines = [`ulimit -t ${l.cpuSeconds}`, `ulimit -d ${l.memoryMb * 1024}`, `ulimit -f ${l.fileSizeMb * 1024}`, `ulimit -n ${l.openFiles}`];
  if (withNproc) lines.push(`ulimit -u ${l.processes}`);
  // Descriptors the server's process may have let its children inherit stay outside.
  const closeInherited = 'for f in /proc/self/fd/*; do n=${f##*/}; [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-" 2>/dev/null; done';
  return `${lines.join(" && ")} || { echo "parley: could not set the sandbox's resource limits" >&2; exit 126; }; ${closeInherited}; exec "$@"`;
}

const live = new Set<SandboxProcess>();
let exitHookInstalled = false;
/** When the server exits, every sandboxed process goes with it. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const proc of live) proc.kill();
  });
}

/** Signal a whole process group; a group that is already gone is fine. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ESRCH") return false;
    throw error;
  }
}

export class Sandbox {
  private constructor(
    readonly settings: SandboxSettings,
    readonly state: SandboxState,
  ) {}

  /** Find and try bubblewrap (on the given PATH), unless the operator turned the sandbox off. */
  static async create(settings: SandboxSettings, env: Record<string, string | undefined> = process.env, options: SandboxOptions = {}): Promise<Sandbox> {
    if (settings.mode === "off") return new Sandbox(settings, { kind: "off" });
    if (process.platform !== "linux") {
      return new Sandbox(settings, {
        kind: "unavailable",
        reason: `Parley's sandbox needs Linux with bubblewrap; this server runs on ${process.platform}. Set PARLEY_SANDBOX=off to run tools unconfined (only where every user is trusted).`,
      });
    }
    const bwrap = findExecutable("bwrap", env.PATH);
    if (!bwrap) {
      return new Sandbox(settings, {
        kind: "unavailable",
        reason: "Tools that run processes need the bubblewrap sandbox, which is not installed on this server: install the `bubblewrap` package (e.g. `apt-get install -y bubblewrap`) and restart Parley, or set PARLEY_SANDBOX=off to run them unconfined (only where every user is trusted).",
      });
    }
    const unavailable = (failure: string) =>
      new Sandbox(settings, {
        kind: "unavailable",
        reason: `Tools that run processes need the bubblewrap sandbox, which does not work on this server (${failure}). Allow unprivileged user namespaces or run Parley where bubblewrap works, or set PARLEY_SANDBOX=off to run tools unconfined (only where every user is trusted).`,
      });
    const filter = seccompFilter();
    if ("unsupported" in filter) return unavailable(filter.unsupported);
    let drop: Drop | undefined;
    if (process.getuid?.() === 0) {
      const found = await rootDrop(settings, env, options.mountBase ?? DEFAULT_MOUNT_BASE);
      if (typeof found === "string") return unavailable(found);
      drop = found;
    }
    const host = hostLayout();
    const cgroups = await Cgroups.detect();
    const sandbox = new Sandbox(settings, { kind: "bwrap", bwrap, host, cgroups, seccomp: filter.bytes, drop });
    const failure = await sandbox.selfTest();
    return failure ? unavailable(failure) : sandbox;
  }

  /**
   * Run `id -u` the way every tool's process runs (uid switch, private mounts, seccomp,
   * limits) in a fresh closed folder; undefined when it worked and ran as the expected
   * user, else what went wrong.
   */
  private async selfTest(): Promise<string | undefined> {
    if (this.state.kind !== "bwrap") return undefined;
    const expected = this.state.drop?.uid ?? process.getuid?.();
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "parley-sandbox-probe-")));
    try {
      const proc = await this.spawnConfined(this.state, { argv: ["id", "-u"], project: dir });
      let stdout = "";
      let stderr = "";
      proc.child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
      proc.child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      const timer = setTimeout(() => proc.kill(), 10_000);
      const { code, signal } = await proc.exited.finally(() => clearTimeout(timer));
      if (code !== 0) return (stderr || `exit ${code ?? signal}`).trim();
      if (stdout.trim() !== String(expected)) return `the probe ran as uid ${stdout.trim()}, not ${expected}`;
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  /** One line for the start-up log. */
  describe(): string {
    switch (this.state.kind) {
      case "off":
        return "WARNING: the tool sandbox is OFF (PARLEY_SANDBOX=off): commands the agent runs have this server's rights — its files, its database, the network. Use this only where every user is trusted.";
      case "unavailable":
        return `WARNING: no tool sandbox: ${this.state.reason}`;
      case "bwrap": {
        const cg = this.state.cgroups?.describe();
        const user = this.state.drop ? `uid ${this.state.drop.uid}/gid ${this.state.drop.gid}` : "the server's user";
        return `tool sandbox: bubblewrap (${this.state.bwrap}) as ${user} with a seccomp filter, network ${this.settings.network}, limits ${cg ? `with cgroups: ${cg}` : "per process (no cgroups)"}`;
      }
    }
  }

  /**
   * The unprivileged user sandboxed processes run as, when it differs from the server's
   * own (the server runs as root): the workspace's files belong to it (owner.ts).
   */
  get owner(): SandboxOwner | undefined {
    if (this.state.kind !== "bwrap" || !this.state.drop) return undefined;
    return { uid: this.state.drop.uid, gid: this.state.drop.gid };
  }

  /** Whether tools may start processes here. */
  get available(): boolean {
    return this.state.kind !== "unavailable";
  }

  /** Throws SandboxUnavailableError (its message names what is missing) when processes cannot run. */
  require(): void {
    if (this.state.kind === "unavailable") throw new SandboxUnavailableError(this.state.reason);
  }

  /** A helper program of a tool (e.g. ripgrep), found on the server's PATH. */
  which(name: string, env: Record<string, string | undefined> = process.env): string | undefined {
    return findExecutable(name, env.PATH);
  }

  async spawn(spec: ProcessSpec): Promise<SandboxProcess> {
    this.require();
    const proc = this.state.kind === "bwrap" ? await this.spawnConfined(this.state, spec) : this.spawnUnconfined(spec);
    live.add(proc);
    installExitHook();
    void proc.exited.finally(() => live.delete(proc));
    return proc;
  }

  private spawnUnconfined(spec: ProcessSpec): SandboxProcess {
    const [program = "true", ...args] = spec.argv;
    // Its own process group (detached), so abort and timeout can end every process it started.
    const child = spawn(/*turbopackIgnore: true*/ program, args, {
      cwd: spec.cwd ?? spec.project,
      detached: true,
      stdio: [spec.stdin ?? "ignore", "pipe", "pipe"],
      env: { ...commandEnvironment(process.env), ...spec.env },
    });
    if (!isChild(child)) throw new Error("the process has no output pipes");
    return processHandle(child, false, undefined);
  }

  /** Walks of this server in progress, by tree: a second call into the same tree waits for the first. */
  private readonly adopting = new Map<string, Promise<void>>();

  /**
   * Give `dir` to the sandbox's user unless it is that user's already (a finished walk
   * gives the root last). Calls into one tree queue behind each other, so none starts its
   * process while another's walk of that tree is still going.
   */
  private adopt(dir: string): Promise<void> {
    const owner = this.owner;
    if (!owner) return Promise.resolve();
    const check = async () => {
      if (!(await owns(owner, dir))) await adoptTree(owner, dir);
    };
    // After the previous call into this tree, whether its walk worked or not.
    const queued = (this.adopting.get(dir) ?? Promise.resolve()).then(check, check);
    const entry: Promise<void> = queued.finally(() => {
      if (this.adopting.get(dir) === entry) this.adopting.delete(dir);
    });
    this.adopting.set(dir, entry);
    return entry;
  }

  private async spawnConfined(state: Extract<SandboxState, { kind: "bwrap" }>, spec: ProcessSpec): Promise<SandboxProcess> {
    const { limits } = this.settings;
    const { drop } = state;
    const project = realpathSync(spec.project);
    const writable = (spec.writable ?? []).map((p) => realpathSync(p)).filter((p) => !isInside(project, p));
    const readable = (spec.readable ?? []).map((p) => realpathSync(p)).filter((p) => !isInside(project, p) && !writable.some((w) => isInside(w, p)));
    const program = spec.argv[0];
    // A helper that lives outside the system directories is shown to the process on its own.
    if (program && path.isAbsolute(program) && !isInside("/usr", program) && !readable.includes(program)) readable.push(program);
    // The process runs as the sandbox's user: the workspace is that user's. Other writable
    // paths (outside folders a policy opens) keep their owners: the process changes there
    // only what the host's permissions let that user change, never with the server's rights.
    await this.adopt(project);
    const privateMounts = drop ? await mountPlan(drop.points, [project, ...writable, ...readable]) : undefined;
    const args = bwrapArgs(state.host, {
      writable: spec.readOnlyProject ? writable : [project, ...writable],
      readable: spec.readOnlyProject ? [project, ...readable] : readable,
      cwd: spec.cwd ? realpathSync(spec.cwd) : project,
      network: spec.network ?? this.settings.network,
      tmpBytes: limits.tmpMb * 1024 * 1024,
      env: { ...spec.env, ...confinedEnv() },
      ...(privateMounts ? { sources: privateMounts.sources } : {}),
      ...(drop ? { identity: { uid: drop.uid, gid: drop.gid } } : {}),
      seccompFd: SECCOMP_FD,
    });
    // RLIMIT_NPROC counts every process of the user: only without a pids cgroup, and never for root.
    const withNproc = !state.cgroups?.has("pids") && (drop !== undefined || process.getuid?.() !== 0);
    let command = [state.bwrap, ...args, "--", "/bin/bash", "-c", limitScript(this.settings, withNproc), "parley-sandbox", ...spec.argv];
    if (drop && privateMounts) {
      command = [
        drop.unshare, "--mount", "--propagation", "private", "--", "/bin/sh", "-c", MOUNT_SCRIPT, "parley-mount", drop.mount, ...privateMounts.pairs, "--",
        drop.setpriv, `--reuid=${drop.uid}`, `--regid=${drop.gid}`, "--clear-groups", "--", ...command,
      ];
    }
    let cgroups: CallCgroups | undefined;
    if (state.cgroups) cgroups = await state.cgroups.create({ processes: limits.processes, memoryBytes: limits.memoryMb * 1024 * 1024 });
    let env = NO_ENV;
    if (cgroups) {
      command = ["/bin/sh", "-c", JOIN_SCRIPT, "parley-cgroup", ...command];
      env = { ...NO_ENV, PARLEY_CGROUPS: cgroups.procs.join("\n") };
    }
    try {
      const [file = "", ...rest] = command;
      const child = spawn(/*turbopackIgnore: true*/ file, rest, { cwd: "/", detached: true, stdio: [spec.stdin ?? "ignore", "pipe", "pipe", "pipe"], env });
      if (!isChild(child)) throw new Error("the sandboxed process has no output pipes");
      const filterPipe = child.stdio[SECCOMP_FD];
      if (filterPipe && "end" in filterPipe) {
        filterPipe.on("error", (error: NodeJS.ErrnoException) => {
          // bwrap may be gone before it read the filter; its exit says why.
          if (error.code !== "EPIPE" && error.code !== "ECONNRESET") log.error("could not hand over the seccomp filter", error);
        });
        filterPipe.end(state.seccomp);
      }
      return processHandle(child, true, cgroups);
    } catch (error) {
      await cgroups?.remove();
      throw error;
    }
  }
}

/** Find what a root server needs to become the sandbox's user; a string says what is missing. */
async function rootDrop(settings: SandboxSettings, env: Record<string, string | undefined>, mountBase: string): Promise<Drop | string> {
  // The system directories too: root's PATH may lack /usr/sbin, util-linux has them in /usr/bin.
  const search = [env.PATH, SANDBOX_PATH].filter(Boolean).join(path.delimiter);
  const setpriv = findExecutable("setpriv", search);
  const unshare = findExecutable("unshare", search);
  const mount = findExecutable("mount", search);
  const missing = [!setpriv && "setpriv", !unshare && "unshare", !mount && "mount"].filter(Boolean);
  if (!setpriv || !unshare || !mount) {
    return `a root server runs tools as uid ${settings.user.uid} through ${missing.join(", ")} from util-linux, which ${missing.length > 1 ? "are" : "is"} not installed`;
  }
  const points = await MountPoints.open(mountBase);
  if (!(points instanceof MountPoints)) return points.unusable;
  return { uid: settings.user.uid, gid: settings.user.gid, setpriv, unshare, mount, points };
}

/** Each source gets a mount point of its kind (directory or file) of the call's private namespace. */
async function mountPlan(points: MountPoints, sources: string[]): Promise<{ sources: Map<string, string>; pairs: string[] }> {
  const map = new Map<string, string>();
  const pairs: string[] = [];
  let directories = 0;
  let files = 0;
  for (const source of new Set(sources)) {
    // Sources are real paths (no link left to follow).
    const stat = await fs.lstat(source);
    const point = stat.isDirectory() ? points.directory(directories++) : points.file(files++);
    map.set(source, point);
    pairs.push(source, point);
  }
  await points.ensure(directories, files);
  return { sources: map, pairs };
}

function processHandle(child: Child, confined: boolean, cgroups: CallCgroups | undefined): SandboxProcess {
  let killTimer: NodeJS.Timeout | undefined;
  const pid = child.pid;
  const kill = () => {
    if (pid === undefined) return;
    try {
      // Confined: the group leader is bwrap; with it goes the sandbox's PID namespace, and
      // every process in it, whatever group or session it moved to.
      signalGroup(pid, "SIGKILL");
    } catch (error) {
      log.error(`could not kill process group ${pid}`, error);
    }
  };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    let settled = false;
    const done = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      // Unconfined children may have left a background job in the group: end it.
      if (killTimer) clearTimeout(killTimer);
      if (!confined && pid !== undefined && signalGroup(pid, 0)) kill();
      // The call's cgroups go once the kernel has let go of them; nobody waits for that.
      void cgroups?.remove();
      resolve({ code, signal });
    };
    child.once("exit", done);
    child.once("error", () => done(null, null));
  });
  return {
    child,
    confined,
    kill,
    exited,
    terminate(graceMs) {
      if (pid === undefined) return;
      if (confined) return kill();
      try {
        signalGroup(pid, "SIGTERM");
      } catch (error) {
        log.error(`could not terminate process group ${pid}`, error);
      }
      killTimer ??= setTimeout(kill, graceMs);
    },
  };
}
