import { runProcess } from "../server/sandbox/run";
import { Sandbox } from "../server/sandbox/sandbox";
import { sandboxSettings } from "../server/sandbox/settings";

/**
 * For server/sandbox/confinement.integration.test.ts: a server that is NOT root (the test
 * starts this process as an unprivileged uid) makes its sandbox and runs the checks of
 * issue 30 acceptance 2 in it; prints one JSON line with what it saw.
 */
const project = process.argv[2];
if (!project) throw new Error("usage: sandbox-unprivileged-child <project>");
const ptrace = process.arch === "arm64" ? 117 : 101;
const sandbox = await Sandbox.create(sandboxSettings(undefined, {}));
const checks = [
  "id -u",
  "echo 1 > /proc/sys/vm/drop_caches && echo WROTE",
  "find /proc/sys -type f -writable | head -3",
  `perl -e '$r = syscall(${ptrace}, 16, 1, 0, 0); print "ptrace $r ", $!+0, "\\n"'`,
  "unshare -U true && echo UNSHARED",
  "mkdir -p /tmp/m && mount -t tmpfs x /tmp/m && echo MOUNTED",
  "echo inside > made.txt && cat made.txt",
].join("; ");
let output = "";
const result = sandbox.available
  ? await runProcess(sandbox, { argv: ["bash", "-c", checks], project }, {
      timeoutMs: 30_000,
      signal: new AbortController().signal,
      graceMs: 1000,
      onStdout: (text) => (output += text),
      onStderr: (text) => (output += text),
    })
  : undefined;
process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), kind: sandbox.state.kind, owner: sandbox.owner ?? null, exit: result?.exit ?? null, output, describe: sandbox.describe() })}\n`);
