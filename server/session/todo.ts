import type { Bus } from "../bus/bus";
import type { Db } from "../db/client";
import * as Event from "./events";
import type { Todo } from "./events";

/** The session's todo list (todowrite/todoread), one row per session. */
export async function read(db: Db, sessionId: string): Promise<Todo[]> {
  const row = await db.todo.findUnique({ where: { sessionId } });
  if (!row) return [];
  const parsed = Event.Todo.array().safeParse(row.todos);
  return parsed.success ? parsed.data : [];
}

export async function write(deps: { db: Db; bus: Bus; teamId: string }, sessionId: string, todos: Todo[]): Promise<void> {
  const value = Event.Todo.array().parse(todos);
  await deps.db.todo.upsert({ where: { sessionId }, create: { sessionId, todos: value }, update: { todos: value } });
  deps.bus.publish(Event.TodoUpdated, { sessionId, todos: value }, { teamId: deps.teamId, sessionId });
}
