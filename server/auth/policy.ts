import path from "node:path";
import type { Db, Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import { Project } from "../project";
import { ensureSampleProject } from "../project/sample";

/**
 * Who may sign up, and what a new account starts with:
 * - the first user of an install creates the first team, with the default project (a
 *   sample project when its directory is empty) — or, on an install made before sign-in
 *   existed, takes over the teams left without members;
 * - later, with sign-up "invite" (the default) only an email with a pending invitation
 *   may sign up, and joins by accepting it; with "open" anyone may, and someone without an
 *   invitation gets a team of their own (with no project until an admin registers one).
 */
export interface SignUpPolicy {
  signUp: "invite" | "open";
  /** Directory of the first team's project. */
  defaultProject: string;
}

export type NewUserOutcome =
  | { kind: "first"; teamId: string; projectId: string }
  | { kind: "adopted"; teamIds: string[] }
  | { kind: "invited" }
  | { kind: "own-team"; teamId: string }
  | { kind: "no-team" };

/** One transaction at a time decides whether a new user is the first (pg_advisory_xact_lock key). */
const FIRST_USER_LOCK = 0x7061726c; // "parl"

type Tx = Prisma.TransactionClient | Db;

async function hasPendingInvitation(db: Tx, email: string, now: Date): Promise<boolean> {
  const found = await db.invitation.findFirst({
    where: { email: { equals: email, mode: "insensitive" }, status: "pending", expiresAt: { gt: now } },
    select: { id: true },
  });
  return found !== null;
}

async function hasMembers(db: Tx): Promise<boolean> {
  return (await db.membership.findFirst({ select: { id: true } })) !== null;
}

/** Request header of a sign-up made from an invitation link: the invitation's id (its secret). */
export const INVITATION_HEADER = "x-parley-invitation";

async function holdsInvitation(db: Tx, email: string, invitationId: string, now: Date): Promise<boolean> {
  const found = await db.invitation.findFirst({
    where: { id: invitationId, email: { equals: email, mode: "insensitive" }, status: "pending", expiresAt: { gt: now } },
    select: { id: true },
  });
  return found !== null;
}

/**
 * Before an account is made. Throws FORBIDDEN when this email may not sign up: with
 * sign-up "invite", after the first user, only with a pending invitation for this email,
 * and only by whoever holds it (its link's id) — knowing whom an admin invited is not
 * enough to take the account.
 */
export async function checkSignUp(db: Db, policy: SignUpPolicy, email: string, invitationId?: string | undefined, now = new Date()): Promise<void> {
  if (policy.signUp === "open") return;
  if (!(await hasMembers(db))) return;
  if (invitationId && (await holdsInvitation(db, email, invitationId, now))) return;
  if (await hasPendingInvitation(db, email, now)) {
    throw new ParleyError("FORBIDDEN", "This email address has an invitation: sign up through the invitation link you were given.");
  }
  throw new ParleyError("FORBIDDEN", "Signing up needs an invitation: ask an admin of your team to invite this email address.");
}

/** A new team with `userId` as its owner. The slug is the id: unique, and never shown. */
export async function createTeam(db: Tx, userId: string, name: string): Promise<string> {
  const teamId = Id.ascending("team");
  await db.team.create({ data: { id: teamId, name, slug: teamId } });
  await db.membership.create({ data: { id: Id.ascending("membership"), teamId, userId, role: "owner" } });
  // The sign-up's browser session may exist already: it starts in the new team.
  await db.authSession.updateMany({ where: { userId, activeTeamId: null }, data: { activeTeamId: teamId } });
  return teamId;
}

export function teamNameFor(userName: string): string {
  const name = userName.trim();
  return name ? `${name}'s team`.slice(0, 100) : "My team";
}

/** After an account is made: give it its team, if it gets one (see the module comment). */
export async function setUpNewUser(
  db: Db,
  policy: SignUpPolicy,
  user: { id: string; name: string; email: string },
  now = new Date(),
): Promise<NewUserOutcome> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${FIRST_USER_LOCK})`;
    if (!(await hasMembers(tx))) {
      const orphans = await tx.team.findMany({ where: { memberships: { none: {} } }, select: { id: true }, orderBy: { createdAt: "asc" } });
      if (orphans.length > 0) {
        await tx.membership.createMany({
          data: orphans.map((team) => ({ id: Id.ascending("membership"), teamId: team.id, userId: user.id, role: "owner" as const })),
        });
        await tx.authSession.updateMany({ where: { userId: user.id, activeTeamId: null }, data: { activeTeamId: orphans[0]!.id } });
        return { kind: "adopted", teamIds: orphans.map((team) => team.id) };
      }
      const teamId = await createTeam(tx, user.id, teamNameFor(user.name));
      ensureSampleProject(policy.defaultProject);
      // Stored as its real path, like every project, so overlap checks see through links.
      const directory = await Project.realDirectory(policy.defaultProject, "The default project");
      const project = await Project.insert(tx, { teamId, name: path.basename(policy.defaultProject), directory }, policy.defaultProject);
      return { kind: "first", teamId, projectId: project.id };
    }
    if (await hasPendingInvitation(tx, user.email, now)) return { kind: "invited" };
    if (policy.signUp === "open") return { kind: "own-team", teamId: await createTeam(tx, user.id, teamNameFor(user.name)) };
    return { kind: "no-team" };
  });
}

/** The team a new browser session starts in: the user's oldest membership. */
export async function initialTeam(db: Db, userId: string): Promise<string | undefined> {
  const first = await db.membership.findFirst({ where: { userId }, orderBy: { createdAt: "asc" }, select: { teamId: true } });
  return first?.teamId;
}

/** No member yet: whoever signs up first creates the first team. */
export async function isFreshInstall(db: Db): Promise<boolean> {
  return !(await hasMembers(db));
}
