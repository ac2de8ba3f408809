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

const NEXT_BASE = "http://parley.invalid";

/**
 * Where to go after signing in: `next` resolved the way a browser will resolve it, against
 * this site's origin, kept only when it stays there (else "/"). Resolving — not matching
 * text — is what catches `/\t/evil.example` (the URL parser drops tabs and newlines, leaving
 * `//evil.example`), `/\\evil.example` and the like. The result is the parsed path, so
 * the browser reads it exactly as checked here.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/")) return "/";
  const url = URL.parse(next, NEXT_BASE);
  if (!url || url.origin !== NEXT_BASE) return "/";
  const path = `${url.pathname}${url.search}${url.hash}`;
  // "/.//evil.example" parses to the path "//evil.example", which a browser reads as a host.
  return path.startsWith("//") ? "/" : path;
}
