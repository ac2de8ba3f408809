import { memberContext } from "@/server/context";
import { errorResponse } from "@/server/http";
import { requestLogger } from "@/server/log";
import { assertSameOrigin } from "@/server/origin";
import { liveStream } from "@/server/live/stream";

export const dynamic = "force-dynamic";

/** Live events of one session of the member's team (SSE): its current state, `stream.ready`, then every change. */
export async function GET(req: Request, { params }: { params: Promise<{ sessionId: string }> }) {
  const request = requestLogger("live", req.headers);
  try {
    const { sessionId } = await params;
    const ctx = await memberContext(req.headers);
    assertSameOrigin(req, ctx.settings.publicUrl);
    return await liveStream(req, { audience: "member", ctx, sessionId });
  } catch (error) {
    return errorResponse(error, request);
  }
}
