import { runtime } from "../runtime";
import { type Auth, createAuth } from "./auth";
import { trustedProxies, withClientAddress } from "./client-address";
import { authSecret } from "./secret";
import { AccessEnded } from "../live/access";

/** The scope of an `access.ended` that is not about one team (a sign-out): no team has this id. */
const NO_TEAM = "-";

const KEY = Symbol.for("parley.auth");
type Holder = { [KEY]?: Promise<Auth> };

/** The process's better-auth instance, on the runtime's database (kept across dev reloads like the runtime). */
export function getAuth(): Promise<Auth> {
  const holder = globalThis as Holder;
  holder[KEY] ??= (async () => {
    const rt = await runtime();
    const secret = await authSecret(rt.services.db, rt.config.authSecret);
    const { publicUrl, signUp, defaultProject, authRateLimit } = rt.config;
    const { bus } = rt.services;
    return createAuth({
      db: rt.services.db,
      secret,
      publicUrl,
      signUp,
      defaultProject,
      rateLimit: authRateLimit,
      // Reaches every instance (the PostgreSQL bridge), where the live streams of that access end.
      onAccessEnded: (ended) => bus.publish(AccessEnded, ended, { teamId: ended.teamId ?? NO_TEAM }),
    });
  })().catch((error: unknown) => {
    delete holder[KEY];
    throw error;
  });
  return holder[KEY];
}

/**
 * better-auth's endpoints for one request, told the client's address as the server
 * resolved it (its rate limits key on it), never a client's own X-Forwarded-For.
 */
export async function handleAuthRequest(req: Request): Promise<Response> {
  const [auth, rt] = await Promise.all([getAuth(), runtime()]);
  return auth.handler(withClientAddress(req, trustedProxies(rt.config.trustedProxies)));
}
