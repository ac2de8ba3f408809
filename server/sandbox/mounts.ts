import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "../errno";

/**
 * Fixed mount points for the private mount namespace of a sandboxed call when the server
 * is root. bwrap runs as the sandbox's unprivileged user and could not reach a project
 * under a closed directory (a 0700 temporary folder, the data directory): so root first
 * binds each source onto one of these empty, world-traversable points in a mount namespace
 * of the call's own, then drops to that user, and bwrap binds the point to the real path.
 * Each call has its own namespace, so every concurrent call uses the same points.
 */

export const DEFAULT_MOUNT_BASE = "/run/parley-sandbox";

/**
 * Arguments: the mount program, then pairs (source, mount point) up to a lone `--`, then
 * the command to run. Binds each pair, then becomes the command. Paths arrive as
 * positional arguments, never as script text.
 */
export const MOUNT_SCRIPT =
  'mount=$1; shift; while [ "$1" != "--" ]; do "$mount" -n --bind "$1" "$2" || exit 125; shift 2; done; shift; exec "$@"';

/** Why `dir` and its ancestors would not serve (not root's, writable by others, a link, closed to others), or undefined. */
async function unsafeDirectory(dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = path.dirname(current)) {
    const stat = await fs.lstat(current);
    if (!stat.isDirectory()) return `${current} is not a directory`;
    if (stat.uid !== 0) return `${current} does not belong to root`;
    if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0) return `${current} is writable by other users`;
    if ((stat.mode & 0o001) === 0) return `${current} is closed to other users`;
    if (path.dirname(current) === current) return undefined;
  }
}

export class MountPoints {
  private directories = 0;
  private files = 0;
  private growing: Promise<void> = Promise.resolve();

  private constructor(readonly base: string) {}

  /** The base, made (root's, 0755) when missing; undefined plus a reason when it cannot serve. */
  static async open(base: string): Promise<MountPoints | { unusable: string }> {
    try {
      await fs.mkdir(base, { recursive: true, mode: 0o755 });
      await fs.chmod(base, 0o755);
      const unsafe = await unsafeDirectory(base);
      if (unsafe) return { unusable: `the sandbox's mount points cannot live in ${base}: ${unsafe}` };
    } catch (error) {
      return { unusable: `the sandbox's mount points cannot live in ${base}: ${error instanceof Error ? error.message : String(error)}` };
    }
    return new MountPoints(base);
  }

  directory(i: number): string {
    return path.join(/*turbopackIgnore: true*/ this.base, `b${i}`);
  }

  file(i: number): string {
    return path.join(/*turbopackIgnore: true*/ this.base, `f${i}`);
  }

  /** Make sure `directories` directory points and `files` file points exist (another server may make them at the same time). */
  async ensure(directories: number, files: number): Promise<void> {
    const run = this.growing.then(async () => {
      for (let i = this.directories; i < directories; i++) {
        const point = this.directory(i);
        try {
          await fs.mkdir(point, { mode: 0o755 });
        } catch (error) {
          if (errorCode(error) !== "EEXIST") throw error;
        }
        const stat = await fs.lstat(point);
        if (!stat.isDirectory() || stat.uid !== 0) throw new Error(`${point} is not a directory of root's`);
        this.directories = i + 1;
      }
      for (let i = this.files; i < files; i++) {
        const point = this.file(i);
        try {
          await fs.writeFile(point, "", { flag: "wx", mode: 0o644 });
        } catch (error) {
          if (errorCode(error) !== "EEXIST") throw error;
        }
        const stat = await fs.lstat(point);
        if (!stat.isFile() || stat.uid !== 0) throw new Error(`${point} is not a file of root's`);
        this.files = i + 1;
      }
    });
    // A failure is the caller's; the next call tries again from what exists.
    this.growing = run.catch((error: unknown) => void error);
    return run;
  }
}
