import { memberContext } from "@/server/context";
import { isParleyError } from "@/server/errors";
import * as Api from "@/server/mcp/api";

export const dynamic = "force-dynamic";

/**
 * Where a tool server's authorization server sends the browser back (OAuth authorization
 * code with PKCE): the signed-in owner or admin's flow is finished — the code exchanged
 * for tokens, kept as a team secret — and the browser goes back to the Team page, which
 * says how it went. No token ever appears in the address or the page.
 */
export async function GET(req: Request) {
  const url = new URL(req.url);
  // Back to the Team page of the site the browser is on: a relative address (the request's
  // own host may be the server's internal one, where the browser has no sign-in).
  const back = new URLSearchParams();
  try {
    const ctx = await memberContext(req.headers);
    const { name } = await Api.finish(ctx, url.searchParams);
    back.set("connected", name);
  } catch (error) {
    if (!isParleyError(error)) console.error("[mcp] an OAuth callback failed", error);
    back.set("connectError", isParleyError(error) ? error.message : "The tool server could not be connected.");
  }
  return new Response(null, { status: 303, headers: { location: `/team?${back.toString()}` } });
}
