import { liveRoute } from "@/server/live/route";
import { runtime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/**
 * Live events of a shared session and its descendants (SSE), for anyone holding the
 * link: no sign-in, the share id is the credential. Opens with the session's current
 * state and `stream.ready`; `share.revoked` ends it. Unknown or revoked link: 404.
 */
export const GET = liveRoute<{ shareId: string }>(async (_req, { shareId }) => {
  const { services } = await runtime();
  return { watch: { audience: "viewer", services, shareId }, publicUrl: services.settings.publicUrl };
});
