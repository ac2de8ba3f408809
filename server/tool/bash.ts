import { spawn } from "node:child_process";
import { z } from "zod";
import { errorCode } from "./files";
import { define, type ToolContext } from "./tool";

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
/** How long the process group gets between SIGTERM and SIGKILL. */
export const DEFAULT_GRACE_MS = 3_000;
/** Characters of output shown live in the running part's metadata. */
export const LIVE_OUTPUT_CHARS = 30_000;
const UPDATE_INTERVAL_MS = 200;
/** How long to wait for the pipes to drain after the shell exited (background jobs may hold them open). */
const DRAIN_MS = 200;
/** Output kept in memory: this much of the start and of the end; the middle of a huge output is dropped. */
const KEEP_HEAD_CHARS = 4 * 1024 * 1024;
const KEEP_TAIL_CHARS = 4 * 1024 * 1024;

const parameters = z.object({
  command: z.string().min(1).describe("The command to run with bash, in the project directory."),
  timeout: z
    .number()
    .int()
    .positive()
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS}).`),
  description: z.string().optional().describe("What the command does, in 5–10 words (shown to the user), e.g. \"Run the unit tests\"."),
});

/** Commands whose second word is a subcommand worth keeping in an "always allow" pattern. */
const SUBCOMMANDS = new Set(["git", "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "docker", "kubectl", "pip", "pip3", "uv", "poetry", "make", "deno", "gh", "brew", "apt", "apt-get", "systemctl"]);
const RUNNERS = new Set(["npm", "pnpm", "yarn", "bun"]);

/**
 * The leading words of a command that an "always allow" should cover: `git status -s` →
 * `git status`, `npm run build` → `npm run build`, `ls -la` → `ls`. Leading `VAR=value`
 * assignments are skipped.
 */
export function commandPrefix(command: string): string {
  const words = command.trim().split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  const first = words[0] ?? "";
  const word = (w: string | undefined) => w !== undefined && /^[\w@][\w@:./-]*$/.test(w);
  if (!SUBCOMMANDS.has(first) || !word(words[1])) return first;
  if (RUNNERS.has(first) && words[1] === "run" && word(words[2])) return `${first} run ${words[2]}`;
  return `${first} ${words[1]}`;
}

/** Combined output, bounded in memory: the start and the end are kept, the middle of a huge output dropped. */
class OutputBuffer {
  private head = "";
  private tail = "";
  private omitted = 0;

  append(text: string): void {
    if (this.omitted === 0 && this.tail === "" && this.head.length + text.length <= KEEP_HEAD_CHARS) {
      this.head += text;
      return;
    }
    this.tail += text;
    if (this.tail.length > 2 * KEEP_TAIL_CHARS) {
      this.omitted += this.tail.length - KEEP_TAIL_CHARS;
      this.tail = this.tail.slice(-KEEP_TAIL_CHARS);
    }
  }

  text(): string {
    if (this.omitted === 0) return this.head + this.tail;
    return `${this.head}\n\n... ${this.omitted} characters of output omitted ...\n\n${this.tail}`;
  }

  /** The latest `max` characters, for the live view. */
  latest(max: number): string {
    const text = this.text();
    return text.length <= max ? text : `…${text.slice(-max)}`;
  }
}

export interface BashToolOptions {
  /** Time between SIGTERM and SIGKILL (default 3 s). */
  graceMs?: number;
}

/** Signal the whole process group; a group that is already gone is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if (errorCode(error) === "ESRCH") return false;
    throw error;
  }
}

interface RunResult {
  output: string;
  exit: number | null;
  signal: NodeJS.Signals | null;
  ended: "exit" | "timeout" | "abort";
}

function run(command: string, timeout: number, graceMs: number, ctx: ToolContext, description: string | undefined): Promise<RunResult> {
  return new Promise<RunResult>((resolve, reject) => {
    const buffer = new OutputBuffer();
    // Its own process group (detached), so abort and timeout can end every process it started.
    const child = spawn("bash", ["-c", command], { cwd: ctx.directory, detached: true, stdio: ["ignore", "pipe", "pipe"], env: commandEnvironment(process.env) });

    let ended: RunResult["ended"] = "exit";
    let killTimer: NodeJS.Timeout | undefined;
    let updateTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const publish = () => {
      updateTimer = undefined;
      if (!settled) ctx.update({ metadata: { output: buffer.latest(LIVE_OUTPUT_CHARS), description } });
    };
    const onData = (decoder: TextDecoder) => (chunk: Buffer) => {
      buffer.append(decoder.decode(chunk, { stream: true }));
      updateTimer ??= setTimeout(publish, UPDATE_INTERVAL_MS);
    };
    const outDecoder = new TextDecoder();
    const errDecoder = new TextDecoder();
    child.stdout.on("data", onData(outDecoder));
    child.stderr.on("data", onData(errDecoder));

    const terminate = (why: "timeout" | "abort") => {
      if (ended !== "exit" || child.pid === undefined || child.exitCode !== null) return;
      ended = why;
      const pid = child.pid;
      try {
        signalGroup(pid, "SIGTERM");
        killTimer = setTimeout(() => {
          try {
            signalGroup(pid, "SIGKILL");
          } catch (error) {
            console.error("[tool.bash] could not kill process group", pid, error);
          }
        }, graceMs);
      } catch (error) {
        console.error("[tool.bash] could not terminate process group", pid, error);
      }
    };
    const timer = setTimeout(() => terminate("timeout"), timeout);
    const onAbort = () => terminate("abort");
    ctx.abort.addEventListener("abort", onAbort, { once: true });
    if (ctx.abort.aborted) onAbort();

    const finish = (exit: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (updateTimer) clearTimeout(updateTimer);
      ctx.abort.removeEventListener("abort", onAbort);
      // Once the whole group is gone, the SIGKILL fallback is not needed.
      if (killTimer && child.pid !== undefined && !signalGroup(child.pid, 0)) clearTimeout(killTimer);
      buffer.append(outDecoder.decode() + errDecoder.decode());
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({ output: buffer.text(), exit, signal, ended });
    };

    child.once("error", (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (updateTimer) clearTimeout(updateTimer);
      if (killTimer) clearTimeout(killTimer);
      ctx.abort.removeEventListener("abort", onAbort);
      reject(error);
    });
    child.once("exit", (exit, signal) => {
      // Give the pipes a moment to deliver what is left; a background job may keep them open.
      const drain = setTimeout(() => finish(exit, signal), DRAIN_MS);
      child.once("close", () => {
        clearTimeout(drain);
        finish(exit, signal);
      });
    });
  });
}

export function createBashTool(options: BashToolOptions = {}) {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  return define({
    id: "bash",
    description: [
      "Run a shell command with bash in the project directory and return its combined stdout and stderr.",
      `- timeout is in milliseconds: default ${DEFAULT_TIMEOUT_MS} (2 minutes), at most ${MAX_TIMEOUT_MS}. On timeout the command and every process it started are terminated.`,
      "- Give a short description of what the command does.",
      "- Each call runs in a fresh shell: chain dependent commands with && instead of relying on an earlier cd.",
      "- Do not use it to read, search or edit files: use read, glob, grep, edit and write instead.",
      "- Avoid interactive commands (stdin is closed) and commands that never end, such as watchers or servers in the foreground.",
    ].join("\n"),
    parameters,
    async execute(input, ctx) {
      const timeout = input.timeout ?? DEFAULT_TIMEOUT_MS;
      await ctx.ask({
        permission: "bash",
        patterns: [input.command],
        always: [`${commandPrefix(input.command)} *`],
        metadata: { command: input.command, description: input.description },
      });
      ctx.abort.throwIfAborted();
      const started = Date.now();
      const result = await run(input.command, timeout, graceMs, ctx, input.description);
      const notes: string[] = [];
      if (result.ended === "timeout") notes.push(`(Command timed out after ${timeout} ms and was terminated, with every process it started.)`);
      else if (result.ended === "abort") notes.push("(Command was aborted and terminated, with every process it started.)");
      else if (result.exit !== null && result.exit !== 0) notes.push(`(Exit code ${result.exit})`);
      else if (result.signal !== null) notes.push(`(Terminated by ${result.signal})`);
      const body = result.output === "" ? "(no output)" : result.output.replace(/\n$/, "");
      return {
        title: input.description ?? input.command,
        output: notes.length > 0 ? `${body}\n\n${notes.join("\n")}` : body,
        metadata: {
          output: result.output.length > LIVE_OUTPUT_CHARS ? `…${result.output.slice(-LIVE_OUTPUT_CHARS)}` : result.output,
          exit: result.exit,
          signal: result.signal,
          timedOut: result.ended === "timeout",
          aborted: result.ended === "abort",
          durationMs: Date.now() - started,
          description: input.description,
        },
      };
    },
  });
}

export const bash = createBashTool();

/**
 * The environment of the agent's commands: the server's, minus its secrets (database
 * URL, provider keys, Parley's own settings), which a command must never be able to read.
 */
const SECRET = /^(DATABASE_URL|PARLEY_.*|OPENAI_.*|.*_API_KEY|.*_SECRET|.*_TOKEN|.*PASSWORD.*)$/i;
export function commandEnvironment<T extends Record<string, string | undefined>>(env: T): T {
  const out = { ...env };
  for (const key of Object.keys(out)) if (SECRET.test(key)) Reflect.deleteProperty(out, key);
  return out;
}
