import { describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { withSettings } from "../../test/runtime";
import { createCallerFactory } from "../trpc/init";
import { appRouter } from "../trpc/router";

/** `share.mode` tells the session page whether its share button can work. */
describe("share.mode (integration)", () => {
  it("reports the configured share mode, manual when none is set", async () => {
    const team = await makeTeam();
    const call = (share?: "auto" | "manual" | "disabled") =>
      createCallerFactory(appRouter)(withSettings(team.ctx, share ? { share } : {})).share.mode();
    expect(await call()).toEqual({ mode: "manual" });
    expect(await call("auto")).toEqual({ mode: "auto" });
    expect(await call("disabled")).toEqual({ mode: "disabled" });
  });
});
