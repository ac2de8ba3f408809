/**
 * Which routes need what (used by proxy.ts and the root layout). Everything not listed
 * as public is for members: deny by default.
 */
export type Access = "public" | "signed-in" | "member";

/** better-auth's cookie prefix (server/auth/auth.ts); its session cookie is `<prefix>.session_token`. */
export const COOKIE_PREFIX = "parley";
export const SESSION_COOKIES = [`${COOKIE_PREFIX}.session_token`, `__Secure-${COOKIE_PREFIX}.session_token`];

/** Request header the proxy sets to the page's path, so the root layout knows which page it wraps. */
export const PATH_HEADER = "x-parley-path";

const PUBLIC = [
  /^\/share\//, // a shared session: the link is the credential
  /^\/api\/share\//,
  /^\/api\/auth\//, // better-auth: sign-up, sign-in, …
  /^\/api\/trpc(\/|$)/, // every procedure checks for itself (share.page is public)
  /^\/sign-in$/,
  /^\/sign-up$/,
  /^\/invite\//, // shows how to sign in to accept
];
const SIGNED_IN = [/^\/welcome$/];

export function access(pathname: string): Access {
  if (PUBLIC.some((pattern) => pattern.test(pathname))) return "public";
  if (SIGNED_IN.some((pattern) => pattern.test(pathname))) return "signed-in";
  return "member";
}

/** A `next` parameter that stays on this site (a path, not `//host` or a URL), else "/". */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}
