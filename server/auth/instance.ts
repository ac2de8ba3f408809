import { runtime } from "../runtime";
import { type Auth, createAuth } from "./auth";
import { authSecret } from "./secret";

const KEY = Symbol.for("parley.auth");
type Holder = { [KEY]?: Promise<Auth> };

/** The process's better-auth instance, on the runtime's database (kept across dev reloads like the runtime). */
export function getAuth(): Promise<Auth> {
  const holder = globalThis as Holder;
  holder[KEY] ??= (async () => {
    const rt = await runtime();
    const secret = await authSecret(rt.services.db, rt.config.authSecret);
    const { publicUrl, signUp, defaultProject, authRateLimit } = rt.config;
    return createAuth({ db: rt.services.db, secret, publicUrl, signUp, defaultProject, rateLimit: authRateLimit });
  })().catch((error: unknown) => {
    delete holder[KEY];
    throw error;
  });
  return holder[KEY];
}
