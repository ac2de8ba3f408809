import { z } from "zod";
import { define } from "../bus/bus";
import { Status } from "../session/info";

/**
 * Sent once on a stream that starts from a session (a member's session stream, a share
 * link's stream), right after the session as it is now (`session.updated`): the opening
 * state is complete and everything after it is live. It carries the run status read with
 * that state, which a browser takes as current (the status inside a session info of a
 * later update may be older than the last `session.status`). Made per stream by
 * server/live/feed.ts, never published on the bus.
 */
export const Ready = define("stream.ready", z.object({ sessionId: z.string(), status: Status.optional() }), {
  audience: ["member", "viewer"],
});
