import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { type TestApp, openApp } from "./app";

/**
 * The operator's explicit choice to run tools unconfined (PARLEY_SANDBOX=off) is loud:
 * the server says so when it starts, in a warning naming what commands can then reach.
 */
describe("PARLEY_SANDBOX=off (integration)", () => {
  let app: TestApp | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it("prints a warning when the server starts, and tools run unconfined", async () => {
    const warn = vi.spyOn(console, "warn");
    try {
      app = await openApp("sandbox_off", (dir) => ({ PARLEY_DATA_DIR: path.join(dir, "data"), PARLEY_SANDBOX: "off" }));
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^\[runtime\] WARNING: the tool sandbox is OFF \(PARLEY_SANDBOX=off\): commands the agent runs have this server's rights/));
      expect(app.rt.services.sandbox.state.kind).toBe("off");
    } finally {
      warn.mockRestore();
    }
  });
});
