/** A task call's child session's tool calls, as its metadata (`summary`) reports them live. */

export interface ChildCall {
  tool: string;
  status: string;
  title: string | undefined;
}

function text(record: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = record[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

/** metadata.summary: the child session's tool calls with their states, read defensively (a model's call may store anything). */
export function childCalls(metadata: Record<string, unknown> | undefined): ChildCall[] {
  const summary = metadata?.summary;
  if (!Array.isArray(summary)) return [];
  const calls: ChildCall[] = [];
  for (const item of summary) {
    if (typeof item !== "object" || item === null) continue;
    const record = item as Record<string, unknown>;
    const state = typeof record.state === "object" && record.state !== null ? (record.state as Record<string, unknown>) : record;
    const tool = text(record, "tool", "name");
    if (!tool) continue;
    calls.push({ tool, status: text(state, "status") ?? "unknown", title: text(state, "title") });
  }
  return calls;
}

/**
 * One line for the collapsed card: while the task runs, the child's current tool (the
 * latest one still running, with its title) and the count of its calls; when it has
 * ended, the count only. Nothing before the child's first call.
 */
export function progressLine(calls: ChildCall[], running: boolean): string | undefined {
  if (calls.length === 0) return undefined;
  const count = `${calls.length} tool call${calls.length === 1 ? "" : "s"}`;
  if (!running) return count;
  const current = calls.findLast((call) => call.status === "running" || call.status === "pending");
  if (!current) return count;
  return `${count} · now ${current.tool}${current.title ? ` ${current.title}` : ""}`;
}
