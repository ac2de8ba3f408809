import { getAuth } from "./auth/instance";
import { type SignedIn, signedInFromHeaders } from "./auth/member";
import { ParleyError } from "./errors";
import { runtime } from "./runtime";
import type { Services } from "./services";
import type { Actor } from "./actor";

/**
 * The context of a request: the runtime's services and who is acting. `actor` is the
 * signed-in user in their active team, undefined when nobody is signed in (`signedIn` is
 * null) or the user belongs to no team. Member-only transports go through `requireActor`.
 */
export type RequestContext = Services & { actor: Actor | undefined; signedIn: SignedIn | null };

export async function requestContext(headers: Headers): Promise<RequestContext> {
  const { services } = await runtime();
  const signedIn = await signedInFromHeaders(await getAuth(), services.db, headers);
  const actor = signedIn?.team ? { userId: signedIn.user.id, teamId: signedIn.team.id, authSessionId: signedIn.authSessionId } : undefined;
  return { ...services, actor, signedIn };
}

/** UNAUTHORIZED when nobody is signed in, FORBIDDEN when the user is in no team. */
export function requireActor<T extends { actor?: Actor | undefined; signedIn?: SignedIn | null }>(ctx: T): T & { actor: Actor } {
  const { actor } = ctx;
  if (actor) return { ...ctx, actor };
  if (ctx.signedIn) throw new ParleyError("FORBIDDEN", "You are not a member of any team yet.");
  throw new ParleyError("UNAUTHORIZED", "Sign in to continue.");
}

/** The member context of a Route Handler's request (see requireActor). */
export async function memberContext(headers: Headers): Promise<RequestContext & { actor: Actor }> {
  return requireActor(await requestContext(headers));
}
