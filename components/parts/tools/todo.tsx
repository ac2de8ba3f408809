import { Icon } from "../icons";
import { type ToolBodyProps, ToolResult, field, metadataOf } from "./shared";

interface Todo {
  content: string;
  status: string;
  priority: string | undefined;
}

function todosOf(value: unknown): Todo[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const todos: Todo[] = [];
  for (const item of value) {
    if (typeof item !== "object" || item === null) continue;
    const record = item as Record<string, unknown>;
    const content = field(record, "content");
    if (content) todos.push({ content, status: field(record, "status") ?? "pending", priority: field(record, "priority") });
  }
  return todos;
}

/** todowrite / todoread: the list as checkboxes. */
export function TodoToolBody({ state, input }: ToolBodyProps) {
  const todos = todosOf(input.todos) ?? todosOf(metadataOf(state)?.todos);
  if (!todos) return <ToolResult state={state} />;
  return (
    <div className="space-y-3">
      <ul className="space-y-1.5 text-sm">
        {todos.map((todo, i) => (
          <li key={i} className="flex items-start gap-2">
            <span
              className={`mt-0.5 grid size-4 shrink-0 place-items-center rounded ${
                todo.status === "completed" ? "bg-emerald-500 text-white" : todo.status === "in_progress" ? "bg-sky-100 ring-1 ring-sky-400" : "ring-1 ring-zinc-300"
              }`}
            >
              {todo.status === "completed" ? <Icon name="check" className="size-3" /> : null}
            </span>
            <span className={todo.status === "completed" || todo.status === "cancelled" ? "text-zinc-400 line-through" : "text-zinc-800"}>{todo.content}</span>
            {todo.priority === "high" ? <span className="text-xs font-medium text-red-600">high</span> : null}
          </li>
        ))}
      </ul>
      {state.status === "error" ? <ToolResult state={state} /> : null}
    </div>
  );
}
