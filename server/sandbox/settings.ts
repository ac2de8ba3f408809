import { z } from "zod";

/**
 * How tool processes are confined (README "Security model"): `mode` "auto" runs every
 * process a tool starts in bubblewrap and refuses to run them when it cannot; "off" runs
 * them unconfined (an explicit operator choice, warned about at every start). `network`
 * "none" gives each process a network namespace of its own with only a loopback; "allow"
 * shares the host's network.
 */
export const SandboxLimits = z
  .object({
    /** CPU seconds per process (RLIMIT_CPU). */
    cpuSeconds: z.number().int().min(1).max(86_400).optional(),
    /** Memory: per process (RLIMIT_DATA), and for the whole tree when a memory cgroup can be used. */
    memoryMb: z.number().int().min(64).max(1_048_576).optional(),
    /** Processes of one call (a pids cgroup; without one, RLIMIT_NPROC of a non-root server user). */
    processes: z.number().int().min(8).max(100_000).optional(),
    /** Largest file a process may write (RLIMIT_FSIZE). */
    fileSizeMb: z.number().int().min(1).max(1_048_576).optional(),
    /** Size of the private /tmp (a tmpfs). */
    tmpMb: z.number().int().min(1).max(1_048_576).optional(),
    /** Open files per process (RLIMIT_NOFILE). */
    openFiles: z.number().int().min(64).max(1_048_576).optional(),
  })
  .strict();

/** A uid or gid of the sandbox's own user: 1 … 2^31-2, so never root (0) and never the kernel's "no id" (-1). */
export const SandboxId = z.number().int().min(1).max(2 ** 31 - 2);

export const SandboxFile = z
  .object({
    mode: z.enum(["auto", "off"]).optional(),
    network: z.enum(["none", "allow"]).optional(),
    limits: SandboxLimits.optional(),
    /** When the server runs as root: the unprivileged uid/gid sandboxed processes run as (default 65500). */
    uid: SandboxId.optional(),
    gid: SandboxId.optional(),
  })
  .strict();
export type SandboxFile = z.infer<typeof SandboxFile>;

/**
 * The default user of sandboxed processes when the server is root: a uid/gid that no
 * account of a Debian-like system has (system users are below 1000, people from 1000 up,
 * `nobody` is 65534), so it owns nothing on the host but the workspaces.
 */
export const DEFAULT_SANDBOX_ID = 65500;

export interface SandboxSettings {
  mode: "auto" | "off";
  network: "none" | "allow";
  limits: Required<z.infer<typeof SandboxLimits>>;
  /** Who sandboxed processes run as when the server is root (ignored otherwise: they run as the server's user). */
  user: { uid: number; gid: number };
}

export const DEFAULT_LIMITS: SandboxSettings["limits"] = {
  cpuSeconds: 600,
  memoryMb: 2048,
  processes: 256,
  fileSizeMb: 1024,
  tmpMb: 512,
  openFiles: 1024,
};

export function sandboxSettings(
  file: SandboxFile | undefined,
  env: { mode?: "auto" | "off"; network?: "none" | "allow"; uid?: number; gid?: number },
): SandboxSettings {
  return {
    mode: env.mode ?? file?.mode ?? "auto",
    network: env.network ?? file?.network ?? "none",
    limits: { ...DEFAULT_LIMITS, ...file?.limits },
    user: { uid: env.uid ?? file?.uid ?? DEFAULT_SANDBOX_ID, gid: env.gid ?? file?.gid ?? DEFAULT_SANDBOX_ID },
  };
}
