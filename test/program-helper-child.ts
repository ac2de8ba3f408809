import { ProgramHelper } from "../server/process/helper";

/**
 * For server/process/helper.test.ts, a process with a helper of its own:
 * - `idle`: runs one program and ends (the idle helper must not keep it alive);
 * - `hold`: starts `sleep 60` through the helper, prints the helper's and the program's
 *   process ids, and waits (the test kills it with SIGKILL).
 */
const mode = process.argv[2];
const helper = new ProgramHelper();
if (mode === "idle") {
  const result = await helper.run({ file: "/bin/sh", args: ["-c", "echo ran"], cwd: "/", env: { PATH: "/usr/bin:/bin" } });
  process.stdout.write(result.stdout);
} else if (mode === "hold") {
  // Killed with this process: the test finds the program as the helper's child.
  helper.run({ file: "/bin/sh", args: ["-c", "exec sleep 60"], cwd: "/", env: { PATH: "/usr/bin:/bin" } }).catch((error: unknown) => console.error(error));
  process.stdout.write(`${JSON.stringify({ helper: helper.pid })}\n`);
  setInterval(() => undefined, 1000);
} else {
  throw new Error("usage: program-helper-child idle|hold");
}
