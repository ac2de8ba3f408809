import type { Auth } from "../server/auth/auth";

/** Signing up and in through better-auth's real HTTP handler, as a browser would. */

export const PASSWORD = "correct horse battery";

export interface Browser {
  userId: string;
  email: string;
  /** Request headers carrying the browser's sign-in cookie. */
  headers: Headers;
}

export const ORIGIN = "http://parley.test";
const BASE = `${ORIGIN}/api/auth`;

/** Calls a better-auth endpoint; returns the status, the JSON body and the Set-Cookie headers. */
export async function authCall(auth: Auth, endpoint: string, body: unknown, headers?: Headers) {
  const init: RequestInit = body === undefined
    ? { method: "GET", headers }
    : { method: "POST", headers: withJson(headers), body: JSON.stringify(body) };
  const res = await auth.handler(new Request(`${BASE}${endpoint}`, init));
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined, cookies: res.headers.getSetCookie() };
}

/** A browser's POST: JSON, and its page's Origin (this site's, unless the test says otherwise). */
function withJson(headers?: Headers): Headers {
  const out = new Headers(headers);
  out.set("content-type", "application/json");
  if (!out.has("origin")) out.set("origin", ORIGIN);
  return out;
}

function cookieHeader(setCookies: string[]): Headers {
  const pairs = setCookies.map((c) => c.split(";")[0]!).filter((pair) => !pair.endsWith("="));
  return new Headers({ cookie: pairs.join("; ") });
}

/** Signs up; with `invitationId`, as the sign-up page of an invitation link does. */
export async function signUp(auth: Auth, email: string, name = email.split("@")[0]!, invitationId?: string): Promise<Browser> {
  const headers = invitationId ? new Headers({ "x-parley-invitation": invitationId }) : undefined;
  const res = await authCall(auth, "/sign-up/email", { email, name, password: PASSWORD }, headers);
  if (res.status !== 200) throw new Error(`sign-up of ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
  const user = (res.body as { user: { id: string } }).user;
  return { userId: user.id, email, headers: cookieHeader(res.cookies) };
}

export async function signIn(auth: Auth, email: string): Promise<Browser> {
  const res = await authCall(auth, "/sign-in/email", { email, password: PASSWORD });
  if (res.status !== 200) throw new Error(`sign-in of ${email} failed: ${res.status} ${JSON.stringify(res.body)}`);
  const user = (res.body as { user: { id: string } }).user;
  return { userId: user.id, email, headers: cookieHeader(res.cookies) };
}

/**
 * A new member of `teamId`: invited by `inviter` (an owner or admin), signed up through the
 * invitation (invite mode needs it) and accepting it.
 */
export async function joinTeam(
  auth: Auth,
  inviter: Browser,
  teamId: string,
  email: string,
  options: { role?: "member" | "admin"; name?: string } = {},
): Promise<Browser> {
  const invited = await authCall(auth, "/organization/invite-member", { email, role: options.role ?? "member", organizationId: teamId }, inviter.headers);
  if (invited.status !== 200) throw new Error(`inviting ${email} failed: ${invited.status} ${JSON.stringify(invited.body)}`);
  const invitationId = (invited.body as { id: string }).id;
  const who = await signUp(auth, email, options.name, invitationId);
  const accepted = await authCall(auth, "/organization/accept-invitation", { invitationId }, who.headers);
  if (accepted.status !== 200) throw new Error(`${email} could not accept the invitation: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return who;
}
