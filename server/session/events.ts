import { z } from "zod";
import { define } from "../bus/bus";
import { Info, Status } from "./info";
import { Todo } from "./todo-item";
import { FileDiff, Message, MessageError, Part } from "./message";

/** Session and message events. */

export { Status } from "./info";
export { Todo } from "./todo-item";

export const Created = define("session.created", z.object({ info: Info }), { audience: ["member", "viewer", "team"] });
export const Updated = define("session.updated", z.object({ info: Info }), { audience: ["member", "viewer", "team"] });
export const Deleted = define("session.deleted", z.object({ info: Info }), { audience: ["member", "viewer", "team"] });
export const StatusChanged = define("session.status", z.object({ sessionId: z.string(), status: Status }), { audience: ["member", "viewer", "team"] });
export const Diff = define("session.diff", z.object({ sessionId: z.string(), diff: z.array(FileDiff) }), { audience: ["member", "viewer", "team"] });
export const Error = define(
  "session.error",
  z.object({ sessionId: z.string().optional(), error: MessageError }),
  { audience: ["member", "viewer", "team"] },
);
export const Compacted = define("session.compacted", z.object({ sessionId: z.string() }), { audience: ["member", "viewer", "team"] });

export const MessageUpdated = define("message.updated", z.object({ info: Message }), { audience: ["member", "viewer"] });
export const MessageRemoved = define("message.removed", z.object({ sessionId: z.string(), messageId: z.string() }), { audience: ["member", "viewer"] });
/**
 * `delta` is the text appended while streaming. In process `part` is complete; on the
 * wire (SSE, other instances) a delta event carries `offset` instead of the text (see
 * wire.ts).
 */
export const PartUpdated = define(
  "message.part.updated",
  z.object({ part: Part, delta: z.string().optional(), offset: z.number().int().nonnegative().optional() }),
  { audience: ["member", "viewer"] },
);
export const PartRemoved = define(
  "message.part.removed",
  z.object({ sessionId: z.string(), messageId: z.string(), partId: z.string() }),
  { audience: ["member", "viewer"] },
);

export const TodoUpdated = define("todo.updated", z.object({ sessionId: z.string(), todos: z.array(Todo) }), { audience: ["member", "viewer"] });
