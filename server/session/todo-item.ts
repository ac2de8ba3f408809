import { z } from "zod";

/** One item of a session's todo list (the todowrite and todoread tools, the chat's list). */
export const Todo = z.object({
  id: z.string(),
  content: z.string(),
  status: z.enum(["pending", "in_progress", "completed", "cancelled"]),
  priority: z.enum(["high", "medium", "low"]),
});
export type Todo = z.infer<typeof Todo>;
