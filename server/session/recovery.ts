import type { Bus } from "../bus/bus";
import type { Db } from "../db/client";
import type { Permissions } from "../permission/permission";
import * as Event from "./events";
import type { RunLock } from "./lock";
import type { Part } from "./message";
import { ABORTED_TOOL } from "./processor";
import { messageData, messageFromRow, partData, partFromRow, sessionFromRow } from "./rows";
import * as Status from "./status";

/**
 * Crash recovery (SPEC §14): a session marked busy or retrying that no instance runs
 * (its advisory lock is free) was interrupted by a crash or kill. Close what it left
 * open: the assistant message gets an error saying it was interrupted, open text is
 * closed, unfinished tools become aborted, pending asks are failed, and the status goes
 * back to idle. Everything already persisted stays as it is.
 */

export const INTERRUPTED_MESSAGE = "Interrupted: the server stopped while this reply was being written.";

export interface RecoveryDeps {
  db: Db;
  bus: Bus;
  lock: RunLock;
  permissions: Permissions;
  /** Sessions this process runs right now (never touched). */
  isLocal: (sessionId: string) => boolean;
}

export async function recover(deps: RecoveryDeps): Promise<string[]> {
  const candidates = await deps.db.session.findMany({ where: { status: { not: "idle" } }, select: { id: true, teamId: true } });
  const recovered: string[] = [];
  for (const session of candidates) {
    if (deps.isLocal(session.id)) continue;
    if (!(await deps.lock.tryAcquire(session.id))) continue; // running elsewhere
    try {
      await recoverSession(deps, session.teamId, session.id);
      recovered.push(session.id);
    } finally {
      await deps.lock.release(session.id);
    }
  }
  return recovered;
}

async function recoverSession(deps: RecoveryDeps, teamId: string, sessionId: string): Promise<void> {
  const scope = { teamId, sessionId };
  const now = Date.now();
  const rows = await deps.db.message.findMany({ where: { sessionId, role: "assistant" }, orderBy: { id: "desc" }, take: 20 });
  for (const row of rows) {
    const info = messageFromRow(row);
    if (info.role !== "assistant" || info.time.completed !== undefined) continue;
    const parts = await deps.db.part.findMany({ where: { messageId: info.id }, orderBy: { id: "asc" } });
    for (const partRow of parts) {
      const part = partFromRow(partRow);
      const closed = close(part, now);
      if (!closed) continue;
      await deps.db.part.update({ where: { id: part.id }, data: { data: partData(closed) } });
      deps.bus.publish(Event.PartUpdated, { part: closed }, scope);
    }
    const closedInfo = {
      ...info,
      error: info.error ?? { name: "AbortedError" as const, message: INTERRUPTED_MESSAGE },
      time: { ...info.time, completed: now },
    };
    await deps.db.message.update({ where: { id: info.id }, data: { data: messageData(closedInfo) } });
    deps.bus.publish(Event.MessageUpdated, { info: closedInfo }, scope);
  }
  await deps.permissions.failPending([sessionId]);
  // A compaction the crash interrupted is not running any more.
  const { count } = await deps.db.session.updateMany({ where: { id: sessionId, timeCompacting: { not: null } }, data: { timeCompacting: null } });
  if (count > 0) {
    const row = await deps.db.session.findUnique({ where: { id: sessionId }, include: { share: true } });
    if (row) deps.bus.publish(Event.Updated, { info: sessionFromRow(row) }, scope);
  }
  await Status.set({ db: deps.db, bus: deps.bus, teamId }, sessionId, { type: "idle" });
}

function close(part: Part, now: number): Part | undefined {
  if ((part.type === "text" || part.type === "reasoning") && part.time?.end === undefined) {
    return { ...part, time: { start: part.time?.start ?? now, end: now } };
  }
  if (part.type === "tool" && (part.state.status === "pending" || part.state.status === "running")) {
    const running = part.state.status === "running" ? part.state : undefined;
    // A running tool keeps what it had shown (e.g. the output a command printed before the crash).
    return {
      ...part,
      state: {
        status: "error",
        input: part.state.input,
        error: ABORTED_TOOL,
        ...(running?.metadata ? { metadata: running.metadata } : {}),
        time: { start: running?.time.start ?? now, end: now },
      },
    };
  }
  return undefined;
}
