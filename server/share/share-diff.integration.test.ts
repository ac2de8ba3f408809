import { describe, expect, it } from "vitest";
import { offlineSessionEach } from "../../test/session-harness";
import { Session } from "../session";
import * as ShareView from "./shared-session";

/** A turn's diff as a share link shows it: every changed file but the secret ones, whose content never appears. */

describe("share.diff (integration, real git and tools)", () => {
  const session = offlineSessionEach("shared diff");

  it("leaves out .env files for viewers, while the member sees every file", async () => {
    const { ctx, sessionId } = session;
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
