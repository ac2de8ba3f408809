import { promises as fs, readFileSync } from "node:fs";
import path from "node:path";
import { logger } from "../log";

const log = logger("sandbox");

/**
 * Per-call control groups, when the host lets this process make them: a `pids` limit (a
 * fork bomb stops at the limit instead of filling the host's process table — RLIMIT_NPROC
 * does not apply to root) and a `memory` limit for the whole process tree, private /tmp
 * included. Works with cgroup v2 when this process's own cgroup accepts children with the
 * controllers, and with the v1 `pids`/`memory` hierarchies; elsewhere there is none, and
 * the sandbox relies on per-process resource limits (README "Security model").
 */

export interface CgroupLimits {
  processes: number;
  memoryBytes: number;
}

interface Controller {
  name: "pids" | "memory";
  /** Directory of this server's own cgroup in that hierarchy. */
  base: string;
  version: 1 | 2;
}

export interface CallCgroups {
  /** `cgroup.procs` files the process must join before it starts (see joinScript). */
  procs: string[];
  /** Remove the groups once every process in them is gone. */
  remove(): Promise<void>;
}

/** This process's group in each hierarchy, by controller ("unified" for cgroup v2). */
export function ownCgroups(): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
    const [, controllers, where] = line.split(":");
    if (controllers === undefined || where === undefined) continue;
    for (const name of controllers === "" ? ["unified"] : controllers.split(",")) own.set(name, where);
  }
  return own;
}

/** The mounted cgroup (v1) and cgroup2 hierarchies, with their super options (v1: the controllers). */
export function mounts(): { dir: string; type: string; options: string[] }[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => {
      const [left = "", right = ""] = line.split(" - ");
      const fields = left.split(" ");
      const [type = "", , superOptions = ""] = right.split(" ");
      return { dir: fields[4] ?? "", type, options: superOptions.split(",") };
    })
    .filter((m) => m.type === "cgroup" || m.type === "cgroup2");
}

async function writable(dir: string, files: string[]): Promise<boolean> {
  const probe = path.join(dir, `parley-probe-${process.pid}`);
  try {
    await fs.mkdir(probe);
  } catch {
    // Not ours to create groups in (read-only cgroupfs, no delegation): no cgroups.
    return false;
  }
  try {
    for (const file of files) await fs.access(path.join(probe, file));
    return true;
  } catch {
    // The controller is not enabled for children here.
    return false;
  } finally {
    await fs.rmdir(probe).catch((error: unknown) => log.error("could not remove a probe cgroup", error));
  }
}

async function findController(name: Controller["name"], own: Map<string, string>, all: ReturnType<typeof mounts>): Promise<Controller | undefined> {
  const limitFile = name === "pids" ? "pids.max" : undefined;
  const v1 = all.find((m) => m.type === "cgroup" && m.options.includes(name));
  const ownV1 = own.get(name);
  if (v1 && ownV1 !== undefined) {
    const base = path.join(v1.dir, ownV1);
    if (await writable(base, [limitFile ?? "memory.limit_in_bytes"])) return { name, base, version: 1 };
    return undefined;
  }
  const v2 = all.find((m) => m.type === "cgroup2");
  const ownV2 = own.get("unified");
  if (v2 && ownV2 !== undefined) {
    const base = path.join(v2.dir, ownV2);
    if (await writable(base, [limitFile ?? "memory.max"])) return { name, base, version: 2 };
  }
  return undefined;
}

export class Cgroups {
  private counter = 0;
  private constructor(private readonly controllers: Controller[]) {}

  /** The controllers usable here, or undefined when none is (not Linux, no permission). */
  static async detect(): Promise<Cgroups | undefined> {
    if (process.platform !== "linux") return undefined;
    let own: Map<string, string>;
    let all: ReturnType<typeof mounts>;
    try {
      own = ownCgroups();
      all = mounts();
    } catch {
      // No /proc: no cgroups to use.
      return undefined;
    }
    const found: Controller[] = [];
    for (const name of ["pids", "memory"] as const) {
      const controller = await findController(name, own, all);
      if (controller) found.push(controller);
    }
    if (found.length === 0) return undefined;
    for (const controller of found) await sweepLeftovers(controller.base);
    return new Cgroups(found);
  }

  describe(): string {
    return this.controllers.map((c) => `${c.name} (cgroup v${c.version})`).join(", ");
  }

  /** This server's own group in each hierarchy used: where the calls' groups are made. */
  bases(): string[] {
    return this.controllers.map((c) => c.base);
  }

  has(name: Controller["name"]): boolean {
    return this.controllers.some((c) => c.name === name);
  }

  /** Make the groups of one call with its limits. */
  async create(limits: CgroupLimits): Promise<CallCgroups> {
    const name = `${CALL_PREFIX}${process.pid}-${++this.counter}`;
    const made: string[] = [];
    const remove = async () => {
      for (const dir of made) await removeWhenEmpty(dir);
    };
    try {
      for (const c of this.controllers) {
        const dir = path.join(c.base, name);
        await fs.mkdir(dir);
        made.push(dir);
        if (c.name === "pids") await fs.writeFile(path.join(dir, "pids.max"), String(limits.processes));
        else await fs.writeFile(path.join(dir, c.version === 1 ? "memory.limit_in_bytes" : "memory.max"), String(limits.memoryBytes));
      }
    } catch (error) {
      await remove();
      throw error;
    }
    return { procs: made.map((dir) => path.join(dir, "cgroup.procs")), remove };
  }
}

/** Name of a call's group: the prefix, the server's pid, a counter. */
const CALL_PREFIX = "parley-sandbox-";
const LEFTOVER = /^parley-(?:sandbox|probe)-(\d+)(?:-\d+)?$/;

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's.
    return !(error instanceof Error && "code" in error && error.code === "ESRCH");
  }
}

/**
 * Remove the empty groups a server killed without its clean-up (`kill -9`) left in `base`:
 * only Parley's (by name), only those whose server is gone (another server's live calls
 * and the groups it is about to join are left alone), and only empty ones (the kernel
 * refuses to remove a group that still has processes or children).
 */
async function sweepLeftovers(base: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(base);
  } catch (error) {
    log.error(`could not look for left-over cgroups in ${base}`, error);
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const match = LEFTOVER.exec(name);
    if (!match || processExists(Number(match[1]))) continue;
    const dir = path.join(base, name);
    try {
      await fs.rmdir(dir);
      removed.push(dir);
    } catch (error) {
      const code = error instanceof Error && "code" in error ? error.code : undefined;
      // EBUSY: processes are still in it (they outlived their server): not empty, so kept.
      if (code !== "EBUSY" && code !== "ENOENT" && code !== "ENOTDIR") log.error(`could not remove the left-over cgroup ${dir}`, error);
    }
  }
  return removed;
}

/** rmdir a cgroup; its last processes may take a moment to be reaped. */
async function removeWhenEmpty(dir: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.rmdir(dir);
      return;
    } catch (error) {
      const code = error instanceof Error && "code" in error ? error.code : undefined;
      if (code === "ENOENT") return;
      if (code !== "EBUSY" || attempt >= 40) {
        log.error(`could not remove the cgroup ${dir}`, error);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * A POSIX shell script that moves itself into the call's cgroups (listed one per line in
 * $PARLEY_CGROUPS) and then becomes the sandbox, so no process of the call ever runs
 * outside them.
 */
export const JOIN_SCRIPT =
  'IFS="\n"; for f in $PARLEY_CGROUPS; do echo $$ > "$f" || exit 125; done; unset PARLEY_CGROUPS; exec "$@"';
