import { errorResponse, sseResponse } from "@/server/http";
import { runtime } from "@/server/runtime";
import { ShareLive } from "@/server/share";

export const dynamic = "force-dynamic";

/**
 * Live events of a shared session and its descendants (SSE), for anyone holding the
 * link: no sign-in, no member context. The first event is `session.updated` with the
 * current state; `share.revoked` ends the stream. Unknown or revoked link: 404.
 */
export async function GET(req: Request, { params }: { params: Promise<{ shareId: string }> }) {
  try {
    const { shareId } = await params;
    const rt = await runtime();
    const source = await ShareLive.source({ db: rt.db, bus: rt.bus, publicUrl: rt.config.publicUrl, mode: rt.config.share }, shareId);
    return sseResponse(req.signal, source);
  } catch (error) {
    return errorResponse(error);
  }
}
