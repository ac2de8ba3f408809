import { errorResponse } from "../http";
import { requestLogger } from "../log";
import { assertSameOrigin } from "../origin";
import { type Watch, liveStream } from "./stream";

/** What a live-stream request may watch, and the site's public address its origin must match. */
export interface LiveTarget {
  watch: Watch;
  publicUrl: string | undefined;
}

/**
 * The GET handler of a live-stream route (app/api/…/events): `target` reads what the
 * request asks for from its route params (the caller's sign-in or share link); the request
 * must come from the site's own origin; access is checked by `liveStream` before anything
 * is streamed, and a refusal is answered as the domain error it is.
 */
export function liveRoute<Params>(target: (req: Request, params: Params) => Promise<LiveTarget>) {
  return async (req: Request, { params }: { params: Promise<Params> }): Promise<Response> => {
    const request = requestLogger("live", req.headers);
    try {
      const { watch, publicUrl } = await target(req, await params);
      assertSameOrigin(req, publicUrl);
      return await liveStream(req, watch);
    } catch (error) {
      return errorResponse(error, request);
    }
  };
}
