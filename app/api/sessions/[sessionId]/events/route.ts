import { memberContext } from "@/server/context";
import { liveRoute } from "@/server/live/route";

export const dynamic = "force-dynamic";

/** Live events of one session of the member's team (SSE): its current state, `stream.ready`, then every change. */
export const GET = liveRoute<{ sessionId: string }>(async (req, { sessionId }) => {
  const ctx = await memberContext(req.headers);
  return { watch: { audience: "member", ctx, sessionId }, publicUrl: ctx.settings.publicUrl };
});
