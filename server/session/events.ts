import { z } from "zod";
import { define } from "../bus/bus";
import { Info, Status } from "./info";
import { FileDiff, Message, MessageError, Part } from "./message";

/** Session and message events (SPEC §4). */

export { Status } from "./info";

export const Created = define("session.created", z.object({ info: Info }));
export const Updated = define("session.updated", z.object({ info: Info }));
export const Deleted = define("session.deleted", z.object({ info: Info }));
export const StatusChanged = define("session.status", z.object({ sessionId: z.string(), status: Status }));
export const Diff = define("session.diff", z.object({ sessionId: z.string(), diff: z.array(FileDiff) }));
export const Error = define(
  "session.error",
  z.object({ sessionId: z.string().optional(), error: MessageError }),
);
export const Compacted = define("session.compacted", z.object({ sessionId: z.string() }));

export const MessageUpdated = define("message.updated", z.object({ info: Message }));
export const MessageRemoved = define("message.removed", z.object({ sessionId: z.string(), messageId: z.string() }));
/**
 * `delta` is the text appended while streaming. In process `part` is complete; on the
 * wire (SSE, other instances) a delta event carries `offset` instead of the text (see
 * wire.ts).
 */
export const PartUpdated = define(
  "message.part.updated",
  z.object({ part: Part, delta: z.string().optional(), offset: z.number().int().nonnegative().optional() }),
);
export const PartRemoved = define(
  "message.part.removed",
  z.object({ sessionId: z.string(), messageId: z.string(), partId: z.string() }),
);

export const Todo = z.object({
  id: z.string(),
  content: z.string(),
  status: z.enum(["pending", "in_progress", "completed", "cancelled"]),
  priority: z.enum(["high", "medium", "low"]),
});
export type Todo = z.infer<typeof Todo>;
export const TodoUpdated = define("todo.updated", z.object({ sessionId: z.string(), todos: z.array(Todo) }));
