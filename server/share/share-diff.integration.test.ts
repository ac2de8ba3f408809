import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { testServices } from "../../test/runtime";
import { Bus } from "../bus/bus";
import { offlineModel } from "../provider/provider";
import type { Context } from "../services";
import { Session } from "../session";
import * as ShareView from "./share-view";

/** A turn's diff as a share link shows it: every changed file but the secret ones, whose content never appears. */

describe("share.diff (integration, real git and tools)", () => {
  let dir: string;
  let ctx: Context;
  let sessionId: string;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "parley-share-diff-"));
    const bus = new Bus();
    const services = testServices(bus, {
      models: {
        resolve: (ref) => ({ ref, language: offlineModel(), limit: { context: 0, output: 0 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }),
        default: () => ({ providerId: "offline", modelId: "parley-offline" }),
      },
      configRules: [{ permission: "bash", pattern: "*", action: "allow" }],
    });
    const team = await makeTeam({ bus, directory: dir, services });
    ctx = team.ctx;
    sessionId = (await Session.create(ctx, { projectId: team.projectId, title: "shared diff" })).id;
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("leaves out .env files for viewers, while the member sees every file", async () => {
    const user = await Session.prompt(ctx, { sessionId, parts: [{ type: "text", text: "run `printf 'KEY=sk-live-9\\n' > .env`, write 'visible' to notes.txt" }] });
    await ctx.runners.idle(sessionId);
    const share = await Session.share(ctx, sessionId);
    const shareId = share.share?.url.split("/").at(-1) ?? "";

    const member = await Session.diffOfTurn(ctx, { sessionId, messageId: user.id });
    expect(member.files.map((f) => f.file)).toEqual([".env", "notes.txt"]);
    expect(member.text).toContain("sk-live-9");

    const viewer = await ShareView.diff(ctx, { shareId, messageId: user.id });
    expect(viewer.files.map((f) => f.file)).toEqual(["notes.txt"]);
    expect(viewer.text).toContain("+visible");
    expect(JSON.stringify(viewer)).not.toContain("sk-live-9");
  });
});
