import { describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { Session } from ".";

describe("Session (integration)", () => {
  it("creates and gets a session with a default title", async () => {
    const { ctx, projectId } = await makeTeam();
    const info = await Session.create(ctx, { projectId });
    expect(info.id.startsWith("ses_")).toBe(true);
    expect(Session.isDefaultTitle(info.title)).toBe(true);
    expect(await Session.get(ctx, info.id)).toEqual(info);
  });
});
