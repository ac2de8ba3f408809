import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ProgramRequest, ProgramResult, ProgramRunner } from "../process/helper";
import { programHelper } from "../process/helper";
import { DiskQuota, DiskQuotaError, projectQuota } from "./quota";

/** The disk quota with the real `du` on a real folder; how often it measures, with a counting runner. */

const MB = 1024 * 1024;
let dir: string;
let measured: number;
let now: number;
const helper = programHelper();
const counting: ProgramRunner = {
  run(request: ProgramRequest): Promise<ProgramResult> {
    measured++;
    return helper.run(request);
  },
};

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "parley-quota-"));
  measured = 0;
  now = 1_000_000;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("DiskQuota (real du)", () => {
  it("measures what the folder takes, keeps the figure for a while, adds what file tools write to it", async () => {
    const quota = new DiskQuota({ limitMb: 2, runner: counting, now: () => now });
    writeFileSync(path.join(dir, "a.bin"), Buffer.alloc(MB, 1));
    const used = await quota.usage(dir);
    expect(used).toBeGreaterThanOrEqual(MB);
    expect(used).toBeLessThan(MB + 64 * 1024);
    await quota.assertRoom(dir, 512 * 1024, "Cannot write b.bin");
    quota.changed(dir, 512 * 1024);
    await expect(quota.assertRoom(dir, 600 * 1024, "Cannot write c.bin")).rejects.toThrow(DiskQuotaError);
    await expect(quota.assertRoom(dir, 600 * 1024, "Cannot write c.bin")).rejects.toThrow(/^Cannot write c\.bin: the project would be over its disk quota \(1\.5 MB used of 2\.0 MB, limits\.projectDiskMb\)/);
    // A change that frees space is never refused.
    await quota.assertRoom(dir, -MB, "Cannot edit a.bin");
    expect(measured).toBe(1);
    // Later, measured again.
    now += 60_000;
    await quota.usage(dir);
    expect(measured).toBe(2);
  });

  it("after a command, measures now and says when the project is over its quota", async () => {
    const quota = new DiskQuota({ limitMb: 1, runner: counting, now: () => now });
    const tool = projectQuota(quota, dir);
    expect(await tool.overNow()).toBeUndefined();
    writeFileSync(path.join(dir, "big.bin"), Buffer.alloc(2 * MB, 1));
    expect(await tool.overNow()).toMatch(/^The project is now over its disk quota \(2\.0 MB used of 1\.0 MB, limits\.projectDiskMb\)/);
    expect(measured).toBe(2);
    expect(await quota.over(dir)).toBeGreaterThan(MB);
    expect(measured).toBe(2);
  });
});
