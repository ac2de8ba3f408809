import { type ProgramRunner, programHelper } from "../process/helper";
import { findExecutable } from "../sandbox/host";
import type { ProjectQuota } from "../tool/tool";

/**
 * A disk quota per project (README "Limits"): how much its folder may hold. The `write`
 * and `edit` tools refuse a change that would take the project past it, a `bash` command
 * that took it past it ends as an error saying so, and no snapshot is taken of a project
 * over it.
 *
 * The usage is measured with `du` (allocated blocks, links not followed, one file
 * system), started by the process helper like git, and kept for a while: a file tool adds
 * what it wrote to the kept figure, a bash command measures again after it ran (its
 * effects are unknown). A project's snapshot store is not counted (it lives in the data
 * directory; each snapshot adds at most `limits.snapshotMb` of new files, see
 * server/snapshot/snapshot.ts).
 */

export const DEFAULT_PROJECT_DISK_MB = 2048;
/** How long a measured usage is trusted (file tools add what they write to it meanwhile). */
const FRESH_MS = 30_000;

export class DiskQuotaError extends Error {
  override name = "DiskQuotaError";
  constructor(
    readonly usedBytes: number,
    readonly limitBytes: number,
    what: string,
  ) {
    super(
      `${what}: the project would be over its disk quota (${megabytes(usedBytes)} MB used of ${megabytes(limitBytes)} MB, limits.projectDiskMb). ` +
        "Remove files the project does not need (build output, downloads, large data) first.",
    );
  }
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

interface Measured {
  bytes: number;
  at: number;
}

export interface DiskQuotaOptions {
  /** The quota of each project, in MB (default DEFAULT_PROJECT_DISK_MB). */
  limitMb?: number;
  runner?: ProgramRunner;
  now?: () => number;
  /** Where `du` is looked up. */
  pathVariable?: string;
}

export class DiskQuota {
  readonly limitBytes: number;
  private readonly runner: ProgramRunner;
  private readonly now: () => number;
  private readonly du: string | undefined;
  private readonly measured = new Map<string, Measured>();
  private readonly measuring = new Map<string, Promise<number>>();

  constructor(options: DiskQuotaOptions = {}) {
    this.limitBytes = (options.limitMb ?? DEFAULT_PROJECT_DISK_MB) * 1024 * 1024;
    this.runner = options.runner ?? programHelper();
    this.now = options.now ?? Date.now;
    this.du = findExecutable("du", options.pathVariable ?? process.env.PATH);
  }

  /** The bytes the project's folder takes: the kept figure while it is fresh, else measured (`fresh`: always measured). */
  async usage(directory: string, options: { fresh?: boolean } = {}): Promise<number> {
    const kept = this.measured.get(directory);
    if (!options.fresh && kept && this.now() - kept.at < FRESH_MS) return kept.bytes;
    let pending = this.measuring.get(directory);
    if (!pending) {
      pending = this.measure(directory).finally(() => this.measuring.delete(directory));
      this.measuring.set(directory, pending);
    }
    const bytes = await pending;
    this.measured.set(directory, { bytes, at: this.now() });
    return bytes;
  }

  /** Refuse (DiskQuotaError) a change adding `adding` bytes that would take the project past its quota. */
  async assertRoom(directory: string, adding: number, what: string): Promise<void> {
    const used = await this.usage(directory);
    if (adding > 0 && used + adding > this.limitBytes) throw new DiskQuotaError(used, this.limitBytes, what);
  }

  /** A file tool changed the project by `delta` bytes: the kept figure follows. */
  changed(directory: string, delta: number): void {
    const kept = this.measured.get(directory);
    if (kept) kept.bytes = Math.max(0, kept.bytes + delta);
  }

  /** The usage when the project is over its quota (measured now with `fresh`), else undefined. */
  async over(directory: string, options: { fresh?: boolean } = {}): Promise<number | undefined> {
    const used = await this.usage(directory, options);
    return used > this.limitBytes ? used : undefined;
  }

  private async measure(directory: string): Promise<number> {
    if (!this.du) throw new Error("du is not installed: the projects' disk quota cannot be measured");
    const result = await this.runner.run({ file: this.du, args: ["-s", "-x", "-B1", "--", directory], cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" } });
    // du exits 1 when some entry could not be read, and still prints the total of the rest.
    const match = /^(\d+)\s/.exec(result.stdout.toString("utf8"));
    if (!match?.[1]) throw new Error(`du could not measure ${directory}: ${result.stderr.toString("utf8").trim().slice(0, 500)}`);
    return Number(match[1]);
  }
}

/** A project's quota as its tools see it (ToolContext.quota). */
export function projectQuota(quota: DiskQuota, directory: string): ProjectQuota {
  return {
    assertRoom: (bytes, what) => quota.assertRoom(directory, bytes, what),
    changed: (bytes) => quota.changed(directory, bytes),
    async overNow() {
      const used = await quota.over(directory, { fresh: true });
      if (used === undefined) return undefined;
      return `The project is now over its disk quota (${megabytes(used)} MB used of ${megabytes(quota.limitBytes)} MB, limits.projectDiskMb): no more files may be written and no snapshot is taken until files are removed.`;
    },
  };
}
