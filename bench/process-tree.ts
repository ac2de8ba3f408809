/**
 * CPU time and memory of a process with all its descendants, read from /proc (Linux):
 * the app's launcher, the Next.js server and the embedded PostgreSQL with its backends.
 * CPU counts each live process's own user + system time and what its exited, waited-for
 * children used (cutime + cstime: the git processes of snapshots, ended PostgreSQL
 * backends), so work done by short-lived children is not missed.
 */
import { readFileSync, readdirSync } from "node:fs";

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

/** CPU milliseconds the tree has used so far. */
export function cpuMs(root: number): number {
  return (tree(root).reduce((n, p) => n + p.ticks, 0) * 1000) / TICKS_PER_SECOND;
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
