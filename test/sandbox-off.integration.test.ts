import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type OwnDatabase, ownDatabase } from "./db";

/**
 * The operator's explicit choice to run tools unconfined (PARLEY_SANDBOX=off) is loud:
 * the server says so when it starts, in a warning naming what commands can then reach.
 */
describe("PARLEY_SANDBOX=off (integration)", () => {
  let own: OwnDatabase;
  let dir: string;
  const ENV = ["DATABASE_URL", "PARLEY_DATA_DIR", "PARLEY_SANDBOX"] as const;
  const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));
  let rt: Awaited<ReturnType<typeof import("../server/runtime")["runtime"]>> | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "parley-sandbox-off-"));
    own = await ownDatabase("sandbox_off");
    Object.assign(process.env, { DATABASE_URL: own.url, PARLEY_DATA_DIR: path.join(dir, "data"), PARLEY_SANDBOX: "off" });
  });
  afterAll(async () => {
    await rt?.bridge.close();
    await rt?.lock.close();
    await rt?.db.$disconnect();
    await own?.drop();
    rmSync(dir, { recursive: true, force: true });
    for (const name of ENV) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it("prints a warning when the server starts, and tools run unconfined", async () => {
    const warn = vi.spyOn(console, "warn");
    try {
      rt = await (await import("../server/runtime")).runtime();
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^\[runtime\] WARNING: the tool sandbox is OFF \(PARLEY_SANDBOX=off\): commands the agent runs have this server's rights/));
      expect(rt.sandbox.state.kind).toBe("off");
    } finally {
      warn.mockRestore();
    }
  });
});
