import { Prisma } from "../db/client";
import type { Services } from "../services";
import * as Event from "./events";
import type { Status } from "./events";

/**
 * Session run status: idle | busy | retry{attempt, message, next}. Kept on the session
 * row (so lists and dashboards on any instance show it) and published on change.
 */
export async function set(s: Services, teamId: string, sessionId: string, status: Status): Promise<void> {
  await s.db.session.update({
    where: { id: sessionId },
    data: { status: status.type, statusData: status.type === "retry" ? status : Prisma.DbNull },
  });
  s.bus.publish(Event.StatusChanged, { sessionId, status }, { teamId, sessionId });
}

export function fromRow(row: { status: string; statusData: unknown }): Status {
  const parsed = Event.Status.safeParse(row.status === "retry" ? row.statusData : { type: row.status });
  return parsed.success ? parsed.data : { type: "idle" };
}
