import { APIError } from "better-auth/api";
import { generateRandomString } from "better-auth/crypto";
import type { Db } from "../db/client";

/**
 * Parley's word on better-auth's team (organization) endpoints, around what the plugin
 * does itself:
 * - a team's slug is the server's: Parley never shows or uses it, so a client's is
 *   replaced at creation, refused on update and cannot be looked up (a lookup, or a
 *   "slug taken" answer, would tell which slugs — the first teams' are their ids — exist);
 * - the plugin's "You cannot leave the organization…" answers become Parley's own
 *   sentences about owners, and a member of another team is "not found" whatever its role.
 */

/** What the before hook does with a request: go on, go on with another body, or refuse. */
export type Before = { body: Record<string, unknown> } | undefined;

/** Code of better-auth's organization plugin (error-codes.mjs) for the last owner leaving or being removed. */
const ONLY_OWNER = "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER";
/** Code of better-auth's organization plugin for the last owner giving up the role. */
const WITHOUT_OWNER = "YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER";

export const SLUG_REFUSED = "A team's slug is set by the server and cannot be changed.";

/** A slug nobody chose: unique, and never shown. */
export function serverSlug(): string {
  return `team-${generateRandomString(32, "a-z", "0-9")}`;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** Before better-auth handles `path`: the body to use instead, or a refusal (thrown). */
export function beforeTeamRequest(path: string, body: unknown): Before {
  switch (path) {
    case "/organization/create": {
      const fields = record(body);
      return fields ? { body: { ...fields, slug: serverSlug() } } : undefined;
    }
    case "/organization/update":
      if (record(record(body)?.data)?.slug !== undefined) throw new APIError("BAD_REQUEST", { message: SLUG_REFUSED });
      return undefined;
    case "/organization/check-slug":
      throw new APIError("NOT_FOUND", { message: "Not found" });
    default:
      return undefined;
  }
}

/** The code of an error better-auth answered with, if it answered with one. */
function errorCode(returned: unknown): string | undefined {
  if (!(returned instanceof APIError)) return undefined;
  const code = record(returned.body)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * After better-auth handled `path`: Parley's error instead of the plugin's (thrown), or
 * nothing to change. The answer keeps the plugin's status (400): an after hook changes
 * the body only. `organizationId` is the team the request was about (its body's, or
 * the sign-in's active team).
 */
export async function afterTeamRequest(db: Db, path: string, body: unknown, returned: unknown, organizationId: () => Promise<string | undefined>): Promise<void> {
  const code = errorCode(returned);
  if (path === "/organization/leave" && code === ONLY_OWNER) {
    throw new APIError("BAD_REQUEST", { message: "The team's only owner cannot leave: make another member owner first." });
  }
  if (path === "/organization/update-member-role" && code === WITHOUT_OWNER) {
    throw new APIError("BAD_REQUEST", { message: "The team's only owner cannot give up the role: make another member owner first." });
  }
  if (path === "/organization/remove-member" && code === ONLY_OWNER) {
    const teamId = typeof record(body)?.organizationId === "string" ? String(record(body)?.organizationId) : await organizationId();
    const target = record(body)?.memberIdOrEmail;
    throw await ownerRemoval(db, teamId, typeof target === "string" ? target : "");
  }
}

/**
 * Why an owner may not be removed: the plugin refuses removing the team's only owner and
 * any owner by someone who is not one, and looks the member up by id before checking the
 * team — so another team's member is "not found" here, as anywhere else.
 */
async function ownerRemoval(db: Db, teamId: string | undefined, memberIdOrEmail: string): Promise<APIError> {
  const byEmail = memberIdOrEmail.includes("@");
  const target = teamId
    ? await db.membership.findFirst({
        where: byEmail ? { teamId, user: { email: memberIdOrEmail.toLowerCase() } } : { teamId, id: memberIdOrEmail },
        select: { id: true },
      })
    : null;
  if (!teamId || !target) return new APIError("BAD_REQUEST", { message: "Member not found", code: "MEMBER_NOT_FOUND" });
  const owners = await db.membership.count({ where: { teamId, role: "owner" } });
  if (owners > 1) return new APIError("BAD_REQUEST", { message: "An owner can be removed only by another owner." });
  return new APIError("BAD_REQUEST", { message: "The team's only owner cannot be removed: make another member owner first." });
}
