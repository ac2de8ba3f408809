import { memberContext } from "@/server/context";
import { errorResponse, sseResponse } from "@/server/http";
import { Session } from "@/server/session";
import { SyncRequested } from "@/server/session/runner";

export const dynamic = "force-dynamic";

/** Live events of one session (SSE). The first event is `session.updated` with its current state. */
export async function GET(req: Request, { params }: { params: Promise<{ sessionId: string }> }) {
  try {
    const { sessionId } = await params;
    const ctx = await memberContext(req.headers);
    const info = await Session.get(ctx, sessionId);
    const scope = { teamId: info.teamId, sessionId: info.id };
    const response = sseResponse(req.signal, {
      subscribe: (send) => ctx.bus.subscribe(scope, send),
      initial: async () => {
        const current = await Session.get(ctx, sessionId);
        return [{ id: `init-${current.id}-${current.time.updated}`, name: "session.updated", payload: { info: current }, scope, time: Date.now() }];
      },
    });
    // Now subscribed: ask the runner (on whichever instance) to resend what is streaming in full.
    ctx.bus.publish(SyncRequested, { sessionId: info.id }, scope);
    return response;
  } catch (error) {
    return errorResponse(error);
  }
}
