import { accessSync, constants, lstatSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";
import type { HostLayout } from "./bwrap";

/** Facts about the host the sandbox layout depends on, read once at start. */

/** The first executable called `name` on a PATH string, or undefined. */
export function findExecutable(name: string, pathVariable: string | undefined): string | undefined {
  for (const dir of (pathVariable ?? "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (lstatSync(candidate).isDirectory()) continue;
      return candidate;
    } catch {
      // Not in this directory: try the next one.
    }
  }
  return undefined;
}

const SYSTEM_ENTRIES = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

function systemEntries(): HostLayout["systemEntries"] {
  const out: HostLayout["systemEntries"] = [];
  for (const entry of SYSTEM_ENTRIES) {
    try {
      const stat = lstatSync(entry);
      if (stat.isSymbolicLink()) out.push({ path: entry, link: readlinkSync(entry) });
      else if (stat.isDirectory()) out.push({ path: entry });
    } catch {
      // This host has no such entry (e.g. /libx32): nothing to show.
    }
  }
  return out;
}

const MAX_ETC_ENTRIES = 20_000;

/**
 * Entries under /etc that another OS user could not read (or, for a directory, enter):
 * /etc/shadow, /etc/ssl/private, sudoers… Since the sandbox may run as the server's own
 * user — root, on some hosts — these are hidden rather than left to file permissions.
 */
function etcMasks(root = "/etc"): HostLayout["etcMasks"] {
  const files: string[] = [];
  const directories: string[] = [];
  const queue = [root];
  let seen = 0;
  while (queue.length > 0 && seen < MAX_ETC_ENTRIES) {
    const dir = queue.shift() as string;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      // Unreadable to the server itself: hide it like any other closed directory.
      directories.push(dir);
      continue;
    }
    for (const name of names) {
      seen++;
      const full = path.join(dir, name);
      let stat;
      try {
        stat = lstatSync(full);
      } catch {
        // Removed while we looked.
        continue;
      }
      if (stat.isSymbolicLink()) continue;
      if (stat.isDirectory()) {
        if ((stat.mode & 0o005) !== 0o005) directories.push(full);
        else queue.push(full);
      } else if ((stat.mode & 0o004) === 0) files.push(full);
    }
  }
  return { files, directories };
}

/** Kernel knobs of /proc a sandboxed process must never change, those this kernel has. */
const PROC_COVERS = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"];

function procCovers(): string[] {
  return PROC_COVERS.filter((entry) => {
    try {
      lstatSync(entry);
      return true;
    } catch {
      // Not on this kernel (or no /proc): nothing to cover.
      return false;
    }
  });
}

export function hostLayout(): HostLayout {
  return { systemEntries: systemEntries(), etcMasks: etcMasks(), procCovers: procCovers() };
}
