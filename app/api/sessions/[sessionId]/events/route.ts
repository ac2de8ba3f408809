import { requestContext } from "@/server/context";
import { errorResponse, sseResponse } from "@/server/http";
import { Session } from "@/server/session";

export const dynamic = "force-dynamic";

/** Live events of one session (SSE). The first event is `session.updated` with its current state. */
export async function GET(req: Request, { params }: { params: Promise<{ sessionId: string }> }) {
  try {
    const { sessionId } = await params;
    const ctx = await requestContext();
    const info = await Session.get(ctx, sessionId);
    return sseResponse(req.signal, {
      initial: [{ id: `init-${info.id}-${info.time.updated}`, name: "session.updated", payload: { info }, scope: { teamId: info.teamId, sessionId: info.id }, time: Date.now() }],
      subscribe: (send) => ctx.bus.subscribe({ teamId: info.teamId, sessionId: info.id }, send),
    });
  } catch (error) {
    return errorResponse(error);
  }
}
