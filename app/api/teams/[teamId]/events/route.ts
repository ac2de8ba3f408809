import { memberContext } from "@/server/context";
import { liveRoute } from "@/server/live/route";

export const dynamic = "force-dynamic";

/** Live session and permission events of every session of the member's own team (SSE), for lists and the dashboard. */
export const GET = liveRoute<{ teamId: string }>(async (req, { teamId }) => {
  const ctx = await memberContext(req.headers);
  return { watch: { audience: "team", ctx, teamId }, publicUrl: ctx.settings.publicUrl };
});
