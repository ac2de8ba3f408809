import { memberContext } from "@/server/context";
import { errorResponse } from "@/server/http";
import { requestLogger } from "@/server/log";
import { assertSameOrigin } from "@/server/origin";
import { liveStream } from "@/server/live/stream";

export const dynamic = "force-dynamic";

/** Live session and permission events of every session of the member's own team (SSE), for lists and the dashboard. */
export async function GET(req: Request, { params }: { params: Promise<{ teamId: string }> }) {
  const request = requestLogger("live", req.headers);
  try {
    const { teamId } = await params;
    const ctx = await memberContext(req.headers);
    assertSameOrigin(req, ctx.settings.publicUrl);
    return await liveStream(req, { audience: "team", ctx, teamId });
  } catch (error) {
    return errorResponse(error, request);
  }
}
