import { z } from "zod";
import { Todo } from "../session/todo-item";
import { define } from "./tool";

function summary(todos: Todo[]): string {
  const open = todos.filter((t) => t.status !== "completed" && t.status !== "cancelled").length;
  return `${open} todo${open === 1 ? "" : "s"} open`;
}

export const todowrite = define({
  id: "todowrite",
  description: [
    "Replace the session's todo list, to plan and track multi-step work (the user sees it).",
    "- Send the whole list each time; every item has an id, content, status (pending, in_progress, completed, cancelled) and priority (high, medium, low).",
    "- Keep exactly one item in_progress while working, and mark items completed as soon as they are done.",
    "- Skip it for trivial, single-step requests.",
  ].join("\n"),
  parameters: z.object({ todos: z.array(Todo).describe("The complete, updated todo list.") }),
  async execute(input, ctx) {
    await ctx.todos.write(input.todos);
    return {
      title: summary(input.todos),
      output: JSON.stringify(input.todos, null, 2),
      metadata: { todos: input.todos },
    };
  },
});

export const todoread = define({
  id: "todoread",
  description: "Read the session's current todo list.",
  parameters: z.object({}),
  async execute(_input, ctx) {
    const todos = await ctx.todos.read();
    return {
      title: summary(todos),
      output: todos.length > 0 ? JSON.stringify(todos, null, 2) : "The todo list is empty.",
      metadata: { todos },
    };
  },
});
