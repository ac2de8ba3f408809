import { type NextRequest, NextResponse } from "next/server";
import { PATH_HEADER, SESSION_COOKIES, access } from "@/server/auth/paths";

/**
 * The first, optimistic check: a request for a members' page without a sign-in cookie
 * goes to the sign-in page. The real checks run where the data is read: every tRPC
 * procedure, every SSE route and the root layout verify the cookie and the team
 * membership on the server. API routes are not matched at all (see `config`): each
 * answers 401 itself, and the hot paths (prompts, live streams) skip this extra step.
 */
export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const needs = access(pathname);
  const hasCookie = SESSION_COOKIES.some((name) => request.cookies.has(name));
  if (needs !== "public" && !hasCookie) {
    const url = new URL("/sign-in", request.url);
    if (pathname !== "/") url.searchParams.set("next", `${pathname}${search}`);
    return NextResponse.redirect(url);
  }
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, `${pathname}${search}`);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Pages only: not the API (which checks for itself), static files or the favicon.
  matcher: ["/((?!api/|_next/static|_next/image|favicon.ico|robots.txt).*)"],
};
