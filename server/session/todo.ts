import type { Db } from "../db/client";
import { type Services } from "../services";
import { Todo } from "./todo-item";
import * as Event from "./events";

/** The session's todo list (todowrite/todoread), one row per session. */
export async function read(db: Db, sessionId: string): Promise<Todo[]> {
  const row = await db.todo.findUnique({ where: { sessionId } });
  if (!row) return [];
  const parsed = Todo.array().safeParse(row.todos);
  return parsed.success ? parsed.data : [];
}

export async function write(s: Services, teamId: string, sessionId: string, todos: Todo[]): Promise<void> {
  const value = Todo.array().parse(todos);
  await s.db.todo.upsert({ where: { sessionId }, create: { sessionId, todos: value }, update: { todos: value } });
  s.bus.publish(Event.TodoUpdated, { sessionId, todos: value }, { teamId, sessionId });
}
