import { type NextRequest, NextResponse } from "next/server";
import { PATH_HEADER, SESSION_COOKIES, access } from "@/server/auth/paths";

/**
 * The first, optimistic check: a request for a members' route without a sign-in cookie
 * goes to the sign-in page (pages) or gets 401 (API). The real checks run where the data
 * is read: every tRPC procedure, every SSE route and the root layout verify the cookie
 * and the team membership on the server.
 */
export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const needs = access(pathname);
  const hasCookie = SESSION_COOKIES.some((name) => request.cookies.has(name));
  if (needs !== "public" && !hasCookie) {
    if (pathname.startsWith("/api/")) {
      return NextResponse.json({ error: { code: "UNAUTHORIZED", message: "Sign in to continue." } }, { status: 401 });
    }
    const url = new URL("/sign-in", request.url);
    if (pathname !== "/") url.searchParams.set("next", `${pathname}${search}`);
    return NextResponse.redirect(url);
  }
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, `${pathname}${search}`);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon.ico|robots.txt).*)"],
};
