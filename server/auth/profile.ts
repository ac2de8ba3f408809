import { ParleyError } from "../errors";

/**
 * What a user may put in their profile and an admin in their team's record, through
 * better-auth's endpoints (sign-up, update-user, organization create/update). Everything
 * here reaches every teammate's pages, so it is bounded and allow-listed: names are short
 * text, links are http(s) URLs, and Parley keeps no team metadata.
 */

export const MAX_NAME = 100;
const MAX_URL = 2048;
/** Team slugs are made from team ids (policy.ts): letters, digits, - and _. */
const SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

function invalid(message: string): ParleyError {
  return ParleyError.invalid(message);
}

/** A user's or team's name: 1 to 100 characters once trimmed. */
export function checkName(value: unknown, what: string): void {
  if (typeof value !== "string") throw invalid(`${what} must be text`);
  const length = [...value.trim()].length;
  if (length === 0) throw invalid(`${what} must not be empty`);
  if (length > MAX_NAME) throw invalid(`${what} is limited to ${MAX_NAME} characters`);
}

/** An image link: absent, or an http(s) URL (never javascript:, data: or the like). */
export function checkImageUrl(value: unknown, what: string): void {
  if (value === undefined || value === null || value === "") return;
  if (typeof value !== "string" || value.length > MAX_URL) throw invalid(`${what} must be an http(s) URL of at most ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new ParleyError("INVALID", `${what} must be an http(s) URL`, { cause: error });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw invalid(`${what} must be an http(s) URL`);
}

/** The fields of a user better-auth is about to write (a sign-up, or an update of some of them). */
export function checkUserFields(user: { name?: unknown; image?: unknown }, partial: boolean): void {
  if (!partial || user.name !== undefined) checkName(user.name, "a name");
  checkImageUrl(user.image, "a profile image");
}

/** The fields of a team better-auth is about to write: name, slug, logo, metadata. */
export function checkTeamFields(team: { name?: unknown; slug?: unknown; logo?: unknown; metadata?: unknown }): void {
  if (team.name !== undefined) checkName(team.name, "a team name");
  if (team.slug !== undefined && (typeof team.slug !== "string" || !SLUG.test(team.slug))) {
    throw invalid("a team slug is letters, digits, - and _ (at most 64)");
  }
  checkImageUrl(team.logo, "a team logo");
  const metadata = team.metadata;
  const empty = metadata === undefined || metadata === null || metadata === "" || (typeof metadata === "object" && Object.keys(metadata).length === 0);
  if (!empty) throw invalid("teams keep no metadata");
}
