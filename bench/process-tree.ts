/**
 * CPU time and memory of a process with all its descendants, read from /proc (Linux):
 * the app's launcher, the Next.js server and the embedded PostgreSQL with its backends.
 * CPU counts each live process's own user + system time and what its exited, waited-for
 * children used (cutime + cstime: the git processes of snapshots, ended PostgreSQL
 * backends), so work done by short-lived children is not missed.
 *
 * /proc counts in clock ticks (10 ms) per process, so a figure summed over a dozen
 * processes is off by up to a tick each. Where this process may make a control group with
 * CPU accounting (cgroup v1 `cpuacct`, or v2's `cpu.stat`), a tree started in one
 * (`cpuGroup`, bench/app.ts) is measured from it instead: to the nanosecond (v1) or
 * microsecond (v2), every process that ever ran in it included.
 */
import { mkdirSync, readFileSync, readdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { mounts, ownCgroups } from "../server/sandbox/cgroup";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux
const PAGE_KB = 4;

interface Proc {
  pid: number;
  /** The command name (e.g. "node", "postgres"). */
  name: string;
  ppid: number;
  /** user + system + children's user + system, in clock ticks. */
  ticks: number;
  rssKb: number;
}

function read(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces: fields are counted after its ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const num = (i: number) => Number(fields[i - 3]);
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    return { pid, name, ppid: num(4), ticks: num(14) + num(15) + num(16) + num(17), rssKb: num(24) * PAGE_KB };
  } catch {
    return undefined; // exited meanwhile
  }
}

/** Every process of the tree rooted at `root`. */
export function tree(root: number): Proc[] {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => read(Number(name)))
    .filter((p): p is Proc => p !== undefined);
  const children = new Map<number, Proc[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: Proc[] = [];
  const queue = all.filter((p) => p.pid === root);
  while (queue.length) {
    const p = queue.shift();
    if (!p) break;
    out.push(p);
    queue.push(...(children.get(p.pid) ?? []));
  }
  return out;
}

/** A control group that counts the CPU of every process put in it (and of their descendants). */
export interface CpuGroup {
  /** The file a process writes its pid to, to join the group (before it starts any other). */
  procs: string;
  /** CPU milliseconds the group's processes have used so far. */
  cpuMs(): number;
  /** How it counts, for a bench's output. */
  describe: string;
  /** Remove the group (once its processes are gone). */
  remove(): void;
}

/** Groups of trees started in one (by the pid of the tree's root). */
const groups = new Map<number, CpuGroup>();

/**
 * A new control group with CPU accounting, for a process tree about to start, or undefined
 * where none can be made (not Linux, no cgroupfs, not allowed).
 */
export function cpuGroup(name: string): CpuGroup | undefined {
  const candidates: Array<{ base: string | undefined; read: (dir: string) => number; describe: string }> = [];
  try {
    // The server's own cgroup parsing (its sandbox makes per-call groups the same way).
    const own = ownCgroups();
    const all = mounts();
    const within = (mount: string | undefined, where: string | undefined) => (mount && where !== undefined ? path.join(mount, where) : undefined);
    const v1 = all.find((m) => m.type === "cgroup" && m.options.includes("cpuacct"))?.dir;
    if (v1) candidates.push({ base: within(v1, own.get("cpuacct")), read: (dir) => Number(readFileSync(path.join(dir, "cpuacct.usage"), "utf8")) / 1e6, describe: "cgroup v1 cpuacct (ns)" });
    const v2 = all.find((m) => m.type === "cgroup2")?.dir;
    if (v2) {
      candidates.push({
        base: within(v2, own.get("unified")),
        read: (dir) => Number(/^usage_usec (\d+)/m.exec(readFileSync(path.join(dir, "cpu.stat"), "utf8"))?.[1] ?? Number.NaN) / 1e3,
        describe: "cgroup v2 cpu.stat (µs)",
      });
    }
  } catch {
    return undefined;
  }
  for (const { base, read, describe } of candidates) {
    if (!base) continue;
    const dir = path.join(base, `${name}-${process.pid}-${Date.now().toString(36)}`);
    try {
      mkdirSync(dir);
      if (!Number.isFinite(read(dir))) throw new Error("no CPU accounting");
    } catch {
      try {
        rmdirSync(dir);
      } catch {
        // never made
      }
      continue;
    }
    return {
      procs: path.join(dir, "cgroup.procs"),
      cpuMs: () => read(dir),
      describe,
      remove: () => {
        try {
          rmdirSync(dir);
        } catch (error) {
          process.stderr.write(`[bench] could not remove the control group ${dir}: ${String(error)}\n`);
        }
      },
    };
  }
  return undefined;
}

/** Measure the tree rooted at `root` by its control group from now on (its root joined it before starting). */
export function measureByGroup(root: number, group: CpuGroup): void {
  groups.set(root, group);
}

/** How the CPU of the tree rooted at `root` is counted, for a bench's output. */
export function cpuSource(root: number): string {
  return groups.get(root)?.describe ?? "/proc, clock ticks of 10 ms per process";
}

/** CPU milliseconds the tree has used so far. */
export function cpuMs(root: number): number {
  const group = groups.get(root);
  if (group) return group.cpuMs();
  return (tree(root).reduce((n, p) => n + p.ticks, 0) * 1000) / TICKS_PER_SECOND;
}

/** Until the tree has used no more than 10 ms of CPU (a clock tick of /proc) in each of `windows` 100 ms windows in a row. */
export async function quiet(root: number, windows = 3): Promise<void> {
  let calm = 0;
  let last = cpuMs(root);
  while (calm < windows) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = cpuMs(root);
    calm = now - last <= 10 ? calm + 1 : 0;
    last = now;
  }
}

/** CPU milliseconds used so far by the tree's processes of each command name. */
export function cpuByName(root: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of tree(root)) out.set(p.name, (out.get(p.name) ?? 0) + (p.ticks * 1000) / TICKS_PER_SECOND);
  return out;
}

/** Proportional set size of one process in kB (shared pages divided among their users), or its RSS when unreadable. */
function pssKb(p: Proc): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p.pid}/smaps_rollup`, "utf8"));
    return match ? Number(match[1]) : p.rssKb;
  } catch {
    return p.rssKb;
  }
}

export interface Memory {
  /** Resident memory of the largest process (the Next.js server), MB. */
  serverRss: number;
  /** Memory of the whole tree, MB: the sum of PSS, so pages PostgreSQL's backends share count once. */
  treePss: number;
}

export function memory(root: number): Memory {
  const procs = tree(root);
  return {
    serverRss: Math.max(0, ...procs.map((p) => p.rssKb)) / 1024,
    treePss: procs.reduce((n, p) => n + pssKb(p), 0) / 1024,
  };
}

/** Samples the tree's memory every `everyMs` until stopped; returns the peaks. */
export function memoryPeak(root: number, everyMs = 500): { stop(): Memory } {
  const peak = memory(root);
  const sample = () => {
    const now = memory(root);
    peak.serverRss = Math.max(peak.serverRss, now.serverRss);
    peak.treePss = Math.max(peak.treePss, now.treePss);
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}
