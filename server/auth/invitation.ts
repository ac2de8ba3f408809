import type { Db } from "../db/client";
import * as Id from "../id";

/**
 * What an invitation link shows before anyone signs in: the team, who invited and the
 * email invited (prefilled in the sign-up and sign-in forms). The link's id is the
 * invitation's secret (32 random characters), so whoever holds it is who it was passed
 * to; an unknown, used, cancelled or expired invitation shows nothing.
 */
export interface InvitationPreview {
  id: string;
  teamName: string;
  inviterName: string;
  inviterEmail: string;
  email: string;
  role: "owner" | "admin" | "member";
}

export async function invitationPreview(db: Db, invitationId: string, now = new Date()): Promise<InvitationPreview | undefined> {
  if (!invitationId.startsWith(`${Id.PREFIXES.invitation}_`) || invitationId.length > 100) return undefined;
  const row = await db.invitation.findFirst({
    where: { id: invitationId, status: "pending", expiresAt: { gt: now } },
    select: { id: true, email: true, role: true, team: { select: { name: true } }, inviter: { select: { name: true, email: true } } },
  });
  if (!row) return undefined;
  return { id: row.id, teamName: row.team.name, inviterName: row.inviter.name, inviterEmail: row.inviter.email, email: row.email, role: row.role ?? "member" };
}
