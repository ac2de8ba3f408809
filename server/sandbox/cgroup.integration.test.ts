import { spawn, spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Cgroups } from "./cgroup";

/**
 * Issue 30 N16 (the sandbox's half): a server killed with `kill -9` leaves its calls'
 * control groups behind; the next start removes the empty ones of servers that are gone,
 * and nothing else.
 */

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await fs.rmdir(dir).catch((error: unknown) => expect((error as NodeJS.ErrnoException).code).toBe("ENOENT"));
});

/** A pid that no process holds now: a child that has exited and been reaped. */
function deadPid(): number {
  const child = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(child.stdout.trim());
}

const exists = (dir: string) => fs.access(dir).then(() => true, () => false);

describe("N16: left-over sandbox cgroups are swept at start", () => {
  it("N16: the empty groups of a server that is gone are removed at start; a live server's, a busy one and others' stay", async () => {
    const first = await Cgroups.detect();
    if (!first) throw new Error("this machine lets the server make cgroups (CI runs as root)");
    const dead = deadPid();
    const sleeper = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      const groups = first.bases().map((base) => ({
        leftover: path.join(base, `parley-sandbox-${dead}-1`),
        busy: path.join(base, `parley-sandbox-${dead}-2`),
        live: path.join(base, `parley-sandbox-${process.pid}-999999`),
        other: path.join(base, `not-parley-${dead}-1`),
      }));
      for (const g of groups) {
        for (const dir of [g.leftover, g.busy, g.live, g.other]) {
          await fs.mkdir(dir);
          made.push(dir);
        }
        // A process that outlived its server: that group is not empty.
        await fs.writeFile(path.join(g.busy, "cgroup.procs"), String(sleeper.pid));
      }
      await Cgroups.detect();
      for (const g of groups) {
        expect(await exists(g.leftover), g.leftover).toBe(false);
        expect(await exists(g.busy), g.busy).toBe(true);
        expect(await exists(g.live), g.live).toBe(true);
        expect(await exists(g.other), g.other).toBe(true);
      }
    } finally {
      sleeper.kill("SIGKILL");
      await new Promise((resolve) => sleeper.once("exit", resolve));
    }
  });
});
