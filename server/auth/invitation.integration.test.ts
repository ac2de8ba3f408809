import { describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import * as Id from "../id";
import { invitationPreview } from "./invitation";

/** What an invitation link shows before sign-in: the team, the inviter, the invited email. */

async function invitation(input: { status?: string; expiresAt?: Date; role?: "admin" | "member" | null } = {}) {
  const team = await makeTeam();
  const db = testDb();
  await db.user.update({ where: { id: team.userId }, data: { name: "Olga Owner" } });
  const id = `${Id.PREFIXES.invitation}_${Id.ascending("user").slice(4, 36)}`;
  await db.invitation.create({
    data: {
      id,
      teamId: team.teamId,
      email: "milo@example.test",
      role: input.role === undefined ? "admin" : input.role,
      status: input.status ?? "pending",
      expiresAt: input.expiresAt ?? new Date(Date.now() + 60_000),
      inviterId: team.userId,
    },
  });
  return { id, team };
}

describe("invitation preview (integration)", () => {
  it("names the team, who invited and the email invited", async () => {
    const { id, team } = await invitation();
    expect(await invitationPreview(testDb(), id)).toEqual({
      id,
      teamName: `Team ${team.teamId}`,
      inviterName: "Olga Owner",
      inviterEmail: `${team.userId}@test.local`,
      email: "milo@example.test",
      role: "admin",
    });
    expect((await invitationPreview(testDb(), (await invitation({ role: null })).id))?.role).toBe("member");
  });

  it("shows nothing for an unknown, used, cancelled or expired invitation, or an id of another kind", async () => {
    const db = testDb();
    expect(await invitationPreview(db, `${Id.PREFIXES.invitation}_doesnotexist`)).toBeUndefined();
    expect(await invitationPreview(db, (await invitation({ status: "accepted" })).id)).toBeUndefined();
    expect(await invitationPreview(db, (await invitation({ status: "canceled" })).id)).toBeUndefined();
    expect(await invitationPreview(db, (await invitation({ expiresAt: new Date(Date.now() - 1) })).id)).toBeUndefined();
    const { team } = await invitation();
    expect(await invitationPreview(db, team.teamId)).toBeUndefined();
  });
});
