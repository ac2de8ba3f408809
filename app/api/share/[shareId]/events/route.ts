import { errorResponse } from "@/server/http";
import { requestLogger } from "@/server/log";
import { assertSameOrigin } from "@/server/origin";
import { liveStream } from "@/server/live/stream";
import { runtime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/**
 * Live events of a shared session and its descendants (SSE), for anyone holding the
 * link: no sign-in, the share id is the credential. Opens with the session's current
 * state and `stream.ready`; `share.revoked` ends it. Unknown or revoked link: 404.
 */
export async function GET(req: Request, { params }: { params: Promise<{ shareId: string }> }) {
  const request = requestLogger("live", req.headers);
  try {
    const { shareId } = await params;
    const { services } = await runtime();
    assertSameOrigin(req, services.settings.publicUrl);
    return await liveStream(req, { audience: "viewer", services, shareId });
  } catch (error) {
    return errorResponse(error, request);
  }
}
