import { ParleyError } from "../errors";
import type { Services } from "../services";
import * as Event from "./events";
import type { Status } from "./events";

/**
 * Session run status: idle | busy | retry{attempt, message, next}. Kept on the session
 * row (so lists and dashboards on any instance show it) and published on change.
 */
export async function set(s: Services, teamId: string, sessionId: string, status: Status): Promise<void> {
  // Twice per turn: one plain statement.
  const changed = await s.db.$executeRaw`
    UPDATE "Session" SET status = ${status.type}, "statusData" = ${status.type === "retry" ? JSON.stringify(status) : null}::jsonb WHERE id = ${sessionId}`;
  if (changed === 0) throw ParleyError.notFound("session", sessionId);
  s.bus.publish(Event.StatusChanged, { sessionId, status }, { teamId, sessionId });
}

export function fromRow(row: { status: string; statusData: unknown }): Status {
  const parsed = Event.Status.safeParse(row.status === "retry" ? row.statusData : { type: row.status });
  return parsed.success ? parsed.data : { type: "idle" };
}
