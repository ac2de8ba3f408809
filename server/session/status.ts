import type { Bus } from "../bus/bus";
import type { Db } from "../db/client";
import { Prisma } from "../db/client";
import * as Event from "./events";
import type { Status } from "./events";

/**
 * Session run status (SPEC §5): idle | busy | retry{attempt, message, next}. Kept on the
 * session row (so lists and dashboards on any instance show it) and published on change.
 */
export async function set(deps: { db: Db; bus: Bus; teamId: string }, sessionId: string, status: Status): Promise<void> {
  await deps.db.session.update({
    where: { id: sessionId },
    data: { status: status.type, statusData: status.type === "retry" ? status : Prisma.DbNull },
  });
  deps.bus.publish(Event.StatusChanged, { sessionId, status }, { teamId: deps.teamId, sessionId });
}

export function fromRow(row: { status: string; statusData: unknown }): Status {
  const parsed = Event.Status.safeParse(row.status === "retry" ? row.statusData : { type: row.status });
  return parsed.success ? parsed.data : { type: "idle" };
}
