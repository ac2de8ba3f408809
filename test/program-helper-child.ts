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
  const sleeping = helper.run({ file: "/bin/sh", args: ["-c", "echo $$; exec sleep 60"], cwd: "/", env: { PATH: "/usr/bin:/bin" } });
  sleeping.catch((error: unknown) => console.error(error));
  // The program's own pid comes back only when it ends: find it as the helper's child.
  const helperPid = helper.pid;
  process.stdout.write(`${JSON.stringify({ helper: helperPid })}\n`);
  setInterval(() => undefined, 1000);
} else {
  throw new Error("usage: program-helper-child idle|hold");
}
