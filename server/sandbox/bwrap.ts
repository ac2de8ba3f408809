import path from "node:path";
import { isInside } from "../inside";

/**
 * The bubblewrap command line of one sandboxed process (pure: the facts about the host
 * come in as arguments, so the layout can be unit-tested).
 *
 * What the process sees: the system directories read-only (`/usr` and the merged-/usr
 * links, `/etc` minus every entry other OS users could not read), its own `/proc`, a
 * minimal `/dev`, a private size-limited `/tmp`, and the paths it is given — the project
 * read-write at its real path, a few others read-only. Nothing else of the host exists in
 * its mount namespace: not the data directory, not other projects, not home directories,
 * not the server's own files. Directories bwrap has to create on the way to a bound path
 * are made with mode 0111 on a read-only file system, so their listings stay closed
 * (`ls <dataDir>` fails) and cannot be reopened with chmod.
 *
 * Namespaces: user (nested ones disabled), PID, IPC, UTS, cgroup and — unless the network
 * is allowed — network, so the host's loopback (the database, the app itself) is out of
 * reach. Every capability is dropped, and the whole sandbox dies with its parent. The
 * kernel's knobs under the sandbox's /proc (`sys`, `sysrq-trigger`, `irq`, `bus`) are bound
 * read-only over themselves, and a seccomp filter (seccomp.ts) is installed when given.
 *
 * A bind's source may differ from where the process sees it: when the server is root, the
 * real directory is first bound onto a fixed mount point in a private mount namespace
 * (sandbox.ts), so bwrap, running as the sandbox's unprivileged user, never has to walk
 * through the host's closed directories to reach it.
 */

export interface HostLayout {
  /** `/bin`, `/lib`… as they are on the host: a link into /usr (merged /usr) or a directory. */
  systemEntries: { path: string; link?: string }[];
  /** Entries under /etc that other OS users cannot read (shadow, private keys…), hidden. */
  etcMasks: { files: string[]; directories: string[] };
  /** Entries of /proc that exist here and are made read-only in the sandbox's /proc (`/proc/sys`…). */
  procCovers: string[];
}

export interface MountSpec {
  /** Bound read-write at the same path (the project). */
  writable: string[];
  /** Bound read-only at the same path (a session's saved outputs, a helper binary). */
  readable: string[];
  /** Working directory of the process. */
  cwd: string;
  network: "none" | "allow";
  tmpBytes: number;
  env: Record<string, string>;
  /** Where bwrap finds a bound path, when not at the path itself (a mount point of the private namespace). */
  sources?: ReadonlyMap<string, string>;
  /** The uid/gid the process has inside (and, mapped one to one, on the host). */
  identity?: { uid: number; gid: number };
  /** The file descriptor bwrap reads the seccomp program from. */
  seccompFd?: number;
}

/** Directories that already exist in the sandbox; a path below them needs no created parents. */
const MOUNTED_ROOTS = ["/usr", "/etc"];
const FORBIDDEN_ROOTS = ["/proc", "/dev"];


/** Ancestors of `target` strictly between `top` (exclusive) and `target` (exclusive), outermost first. */
function between(top: string, target: string): string[] {
  const out: string[] = [];
  for (let dir = path.dirname(target); dir !== top && isInside(top, dir) && dir !== path.dirname(dir); dir = path.dirname(dir)) out.unshift(dir);
  return out;
}

function namespaceArgs(spec: MountSpec): string[] {
  return [
    "--die-with-parent",
    "--unshare-user",
    ...(spec.identity ? ["--uid", String(spec.identity.uid), "--gid", String(spec.identity.gid)] : []),
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(spec.network === "none" ? ["--unshare-net"] : []),
    "--cap-drop",
    "ALL",
    "--hostname",
    "parley-sandbox",
  ];
}

function systemArgs(host: HostLayout, tmpBytes: number): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const entry of host.systemEntries) {
    if (entry.link !== undefined) args.push("--symlink", entry.link, entry.path);
    else args.push("--ro-bind", entry.path, entry.path);
  }
  args.push("--ro-bind", "/etc", "/etc");
  for (const file of host.etcMasks.files) args.push("--ro-bind", "/dev/null", file);
  for (const dir of host.etcMasks.directories) args.push("--perms", "0000", "--tmpfs", dir);
  args.push("--proc", "/proc");
  // Not left to bwrap's own cover, which it skips when it believes them closed already.
  for (const entry of host.procCovers) args.push("--ro-bind", entry, entry);
  args.push("--dev", "/dev", "--size", String(tmpBytes), "--tmpfs", "/tmp");
  return args;
}

/**
 * Binds for the given paths, with closed (0111) parent directories. A path under the
 * private /tmp gets its own read-only tmpfs at its first level below /tmp, so the parents
 * created there cannot be reopened either; parents elsewhere live in the root, which is
 * remounted read-only at the end.
 */
function bindArgs(binds: { path: string; writable: boolean }[], sources: ReadonlyMap<string, string> | undefined): { args: string[]; readOnlyAfter: string[] } {
  const args: string[] = [];
  const created = new Set<string>();
  const readOnlyAfter: string[] = [];
  for (const bind of binds) {
    if (FORBIDDEN_ROOTS.some((root) => isInside(root, bind.path)) || bind.path === "/" || bind.path === "/tmp") {
      throw new Error(`cannot bind ${bind.path} into the sandbox`);
    }
    let top = "/";
    if (MOUNTED_ROOTS.some((root) => isInside(root, bind.path))) top = bind.path;
    else if (isInside("/tmp", bind.path)) {
      const first = path.join("/tmp", path.relative("/tmp", bind.path).split(path.sep)[0] ?? "");
      top = first;
      if (first !== bind.path && !created.has(first)) {
        created.add(first);
        args.push("--perms", "0111", "--tmpfs", first);
        readOnlyAfter.push(first);
      }
    }
    for (const dir of between(top, bind.path)) {
      if (created.has(dir)) continue;
      created.add(dir);
      args.push("--perms", "0111", "--dir", dir);
    }
    args.push(bind.writable ? "--bind" : "--ro-bind", sources?.get(bind.path) ?? bind.path, bind.path);
  }
  return { args, readOnlyAfter };
}

export function bwrapArgs(host: HostLayout, spec: MountSpec): string[] {
  // Shallow paths first, so a bind below another one lands on top of it.
  const binds = [
    ...spec.writable.map((p) => ({ path: path.resolve(p), writable: true })),
    ...spec.readable.map((p) => ({ path: path.resolve(p), writable: false })),
  ].sort((a, b) => a.path.split(path.sep).length - b.path.split(path.sep).length);
  const mounts = bindArgs(binds, spec.sources);
  const args = [...namespaceArgs(spec), ...systemArgs(host, spec.tmpBytes), ...mounts.args];
  args.push("--remount-ro", "/");
  for (const dir of mounts.readOnlyAfter) args.push("--remount-ro", dir);
  args.push("--chdir", spec.cwd, "--clearenv");
  for (const [key, value] of Object.entries(spec.env)) args.push("--setenv", key, value);
  if (spec.seccompFd !== undefined) args.push("--seccomp", String(spec.seccompFd));
  return args;
}
