import { memberContext } from "@/server/context";
import { ParleyError } from "@/server/errors";
import { errorResponse, sseResponse } from "@/server/http";

export const dynamic = "force-dynamic";

const TEAM_EVENTS = /^(session\.|permission\.)/;

/** Live events of every session of a team (SSE), for the dashboard and session list. */
export async function GET(req: Request, { params }: { params: Promise<{ teamId: string }> }) {
  try {
    const { teamId } = await params;
    const ctx = await memberContext(req.headers);
    if (teamId !== ctx.actor.teamId) throw ParleyError.notFound("team", teamId);
    // Lists and dashboards need session-level changes, not every streamed token.
    return sseResponse(req.signal, {
      subscribe: (send) => ctx.bus.subscribe({ teamId }, (event) => (TEAM_EVENTS.test(event.name) ? send(event) : undefined)),
    });
  } catch (error) {
    return errorResponse(error);
  }
}
