import { existsSync } from "node:fs";
import { z } from "zod";
import { parseShell } from "../permission/shell";
import { runProcess } from "../sandbox/run";
import { define, type PermissionRequest, ToolError } from "./tool";

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
/** How long the process group gets between SIGTERM and SIGKILL when the sandbox is off (a sandboxed tree ends at once). */
export const DEFAULT_GRACE_MS = 3_000;
/** Characters of output shown live in the running part's metadata. */
export const LIVE_OUTPUT_CHARS = 30_000;
const UPDATE_INTERVAL_MS = 200;
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
  /** Time between SIGTERM and SIGKILL when the sandbox is off (default 3 s). */
  graceMs?: number;
}

/**
 * The permission request of a command: every simple command inside it (`a && b`, `$(c)`,
 * pipelines, subshells…) is a pattern of its own, so an approval of `git status *` never
 * covers `git status && rm -rf ~`; what the shell parser cannot read asks every time.
 */
export async function bashRequest(command: string, description: string | undefined): Promise<PermissionRequest> {
  const parsed = await parseShell(command);
  const always = [...new Set(parsed.commands.flatMap((c) => (c.always === undefined ? [] : [c.always])))];
  return {
    permission: "bash",
    patterns: parsed.commands.map((c) => c.text),
    always: parsed.understood ? always : [],
    ...(parsed.understood ? {} : { mustAsk: true }),
    metadata: { command, description, ...(parsed.understood ? {} : { unparsed: parsed.reason ?? "the command could not be read" }) },
  };
}

/** The session's saved outputs are shown to its commands (read-only) once there are any. */
function savedOutputs(dir: string): string[] {
  return existsSync(dir) ? [dir] : [];
}

export function createBashTool(options: BashToolOptions = {}) {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  return define({
    id: "bash",
    description: [
      "Run a shell command with bash in the project directory and return its combined stdout and stderr.",
      `- timeout is in milliseconds: default ${DEFAULT_TIMEOUT_MS} (2 minutes), at most ${MAX_TIMEOUT_MS}. On timeout the command and every process it started are terminated.`,
      "- Give a short description of what the command does.",
      "- Each call runs in a fresh shell, in a sandbox: the project directory is writable, the system read-only, /tmp private and empty, and the network off unless the server allows it. Background processes end with the command.",
      "- Chain dependent commands with && instead of relying on an earlier cd.",
      "- Do not use it to read, search or edit files: use read, glob, grep, edit and write instead.",
      "- Avoid interactive commands (stdin is closed) and commands that never end, such as watchers or servers in the foreground.",
    ].join("\n"),
    parameters,
    async execute(input, ctx) {
      const timeout = input.timeout ?? DEFAULT_TIMEOUT_MS;
      ctx.sandbox.require();
      await ctx.ask(await bashRequest(input.command, input.description));
      ctx.abort.throwIfAborted();
      const started = Date.now();
      const buffer = new OutputBuffer();
      let updateTimer: NodeJS.Timeout | undefined;
      const publish = () => {
        updateTimer = undefined;
        ctx.update({ metadata: { output: buffer.latest(LIVE_OUTPUT_CHARS), description: input.description } });
      };
      const onData = (text: string) => {
        buffer.append(text);
        updateTimer ??= setTimeout(publish, UPDATE_INTERVAL_MS);
      };
      const result = await runProcess(
        ctx.sandbox,
        { argv: ["bash", "-c", input.command], project: ctx.directory, readable: [...savedOutputs(ctx.outputDir), ...(ctx.gitObjects ?? []).filter((dir) => existsSync(dir))] },
        { timeoutMs: timeout, signal: ctx.abort, graceMs, onStdout: onData, onStderr: onData },
      ).finally(() => clearTimeout(updateTimer));
      const notes: string[] = [];
      if (result.ended === "timeout") notes.push(`(Command timed out after ${timeout} ms and was terminated, with every process it started.)`);
      else if (result.ended === "abort") notes.push("(Command was aborted and terminated, with every process it started.)");
      else if (result.exit !== null && result.exit !== 0) notes.push(`(Exit code ${result.exit})`);
      else if (result.signal !== null) notes.push(`(Terminated by ${result.signal})`);
      const output = buffer.text();
      const body = output === "" ? "(no output)" : output.replace(/\n$/, "");
      // What a command wrote is only known by measuring: past the quota, the call fails saying so.
      const overQuota = await ctx.quota?.overNow();
      if (overQuota) throw new ToolError(`${overQuota}\n\nThe command's output:\n${body.length > LIVE_OUTPUT_CHARS ? `…${body.slice(-LIVE_OUTPUT_CHARS)}` : body}`);
      return {
        title: input.description ?? input.command,
        output: notes.length > 0 ? `${body}\n\n${notes.join("\n")}` : body,
        metadata: {
          output: output.length > LIVE_OUTPUT_CHARS ? `…${output.slice(-LIVE_OUTPUT_CHARS)}` : output,
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
