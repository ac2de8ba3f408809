import { z } from "zod";
import { define } from "../bus/bus";
import * as Id from "../id";

/** Permission requests and their events. */
export const Request = z.object({
  id: Id.schema("permission"),
  sessionId: Id.schema("session"),
  permission: z.string(),
  patterns: z.array(z.string()),
  /** Patterns an "always" reply would allow from now on, for the whole team (empty: "always" is not offered). */
  always: z.array(z.string()),
  /** Asked every time: the request could not be fully understood (e.g. a shell command the parser could not read). */
  mustAsk: z.boolean().optional(),
  /**
   * The server config or the team's or project's policy asks it: only owners and admins
   * may answer "always" (their approval then bypasses the question for the whole team).
   */
  policy: z.boolean().optional(),
  metadata: z.record(z.string(), z.unknown()),
  tool: z.object({ messageId: Id.schema("message"), callId: z.string() }).optional(),
  time: z.object({ created: z.number() }),
});
export type Request = z.infer<typeof Request>;

export const Reply = z.enum(["once", "always", "reject"]);
export type Reply = z.infer<typeof Reply>;

export const Asked = define("permission.asked", z.object({ request: Request }), { audience: ["member", "team"] });
export const Replied = define(
  "permission.replied",
  z.object({ sessionId: z.string(), requestId: z.string(), reply: Reply }),
  { audience: ["member", "team"] },
);
