import type { Db } from "../db/client";
import type { Auth } from "./auth";
import type { TeamRole } from "./roles";

export interface TeamInfo {
  id: string;
  name: string;
  role: TeamRole;
}

/** Who is signed in on a request, and the team they work in. */
export interface SignedIn {
  user: { id: string; name: string; email: string };
  /** The sign-in (better-auth session) of the request. */
  authSessionId: string;
  /** The active team; undefined when the user belongs to no team. */
  team: TeamInfo | undefined;
  /** Every team of the user, oldest membership first. */
  teams: TeamInfo[];
}

/**
 * Who is signed in on a request, from its sign-in cookie (checked by better-auth against
 * AuthSession), or null when not signed in. The active team is the browser session's
 * when the user is still a member of it, else their first team: membership is read from
 * the database on every request, so a removed member loses access at once.
 */
export async function signedInFromHeaders(auth: Auth, db: Db, headers: Headers): Promise<SignedIn | null> {
  const found = await auth.api.getSession({ headers });
  if (!found) return null;
  const { user, session } = found;
  // One statement (a relation `select` would cost Prisma a second query on every request).
  const teams = await db.$queryRaw<TeamInfo[]>`
    SELECT t.id, t.name, m.role::text AS role FROM "Membership" m JOIN "Team" t ON t.id = m."teamId"
    WHERE m."userId" = ${user.id} ORDER BY m."createdAt" ASC`;
  const active = session.activeOrganizationId ?? undefined;
  return {
    user: { id: user.id, name: user.name, email: user.email },
    authSessionId: session.id,
    team: teams.find((team) => team.id === active) ?? teams[0],
    teams,
  };
}
