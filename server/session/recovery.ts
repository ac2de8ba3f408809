import { closePart } from "../../lib/part-lifecycle";
import type { Services } from "../services";
import type { AssistantMessage } from "./message";
import { messageFromRow, partFromRow } from "./rows";
import * as Status from "./status";
import * as Store from "./store";

/**
 * Crash recovery: a session marked busy or retrying that no instance runs
 * (its advisory lock is free) was interrupted by a crash or kill. Close what it left
 * open: the assistant message gets an error saying it was interrupted, open text is
 * closed, unfinished tools become aborted, pending asks are failed, and the status goes
 * back to idle. Everything already persisted stays as it is.
 */

export const INTERRUPTED_MESSAGE = "Interrupted: the server stopped while this reply was being written.";

/**
 * Recover every session left busy by an instance that is gone; returns their ids.
 * Sessions this process runs are never touched, nor those `skip` names.
 */
export async function recover(s: Services, options: { skip?: (sessionId: string) => boolean } = {}): Promise<string[]> {
  const busy = await s.db.session.findMany({ where: { status: { not: "idle" } }, select: { id: true, teamId: true } });
  // Sessions running on this or another instance hold their lock: only the others are tried.
  const free = new Set(await s.lock.unlocked(busy.filter((session) => s.runners.get(session.id) === undefined).map((session) => session.id)));
  const candidates = busy.filter((session) => free.has(session.id));
  const recovered: string[] = [];
  for (const session of candidates) {
    if (s.runners.get(session.id) !== undefined || options.skip?.(session.id)) continue;
    if (!(await s.lock.tryAcquire(session.id))) continue; // running elsewhere
    try {
      await recoverSession(s, session.teamId, session.id);
      recovered.push(session.id);
    } finally {
      await s.lock.release(session.id);
    }
  }
  return recovered;
}

/** Close the open parts of an assistant message and complete it (with an error saying it was interrupted, unless it has one). */
async function closeMessage(s: Services, teamId: string, info: AssistantMessage, now: number): Promise<void> {
  const parts = await s.db.part.findMany({ where: { messageId: info.id }, orderBy: { id: "asc" } });
  for (const partRow of parts) {
    const closed = closePart(partFromRow(partRow), now);
    if (closed) await Store.writePart(s, teamId, closed);
  }
  if (info.time.completed !== undefined) return;
  await Store.writeMessage(s, teamId, {
    ...info,
    error: info.error ?? { name: "AbortedError" as const, message: INTERRUPTED_MESSAGE },
    time: { ...info.time, completed: now },
  });
}

async function recoverSession(s: Services, teamId: string, sessionId: string): Promise<void> {
  const now = s.clock.now();
  const rows = await s.db.message.findMany({ where: { sessionId, role: "assistant" }, orderBy: { id: "desc" }, take: 20 });
  for (const row of rows) {
    const info = messageFromRow(row);
    if (info.role !== "assistant" || info.time.completed !== undefined) continue;
    await closeMessage(s, teamId, info, now);
  }
  await s.permissions.failPending([sessionId]);
  // A compaction the crash interrupted is not running any more.
  const row = await s.db.session.findUnique({ where: { id: sessionId }, select: { timeCompacting: true } });
  if (row?.timeCompacting) await Store.updateSession(s, sessionId, { timeCompacting: null });
  await Status.set(s, teamId, sessionId, { type: "idle" });
}

/**
 * Tool parts left pending or running in sessions that are idle — a turn whose last writes
 * failed (before a failed write became a tool error, a tool result with a NUL byte did
 * that) — are closed as aborted, with whatever else their message left open. Sessions
 * this process runs, those `skip` names and those locked by a runner elsewhere are left
 * alone. It reads every tool part, so it runs when a server starts, not on every
 * recovery pass. Returns the ids of the sessions it closed tools in.
 */
export async function closeStrandedTools(s: Services, options: { skip?: (sessionId: string) => boolean } = {}): Promise<string[]> {
  const candidates = await s.db.$queryRaw<{ sessionId: string; teamId: string }[]>`
    SELECT DISTINCT p."sessionId", s."teamId"
    FROM "Part" AS p JOIN "Session" AS s ON s.id = p."sessionId"
    WHERE p.type = 'tool' AND s.status = 'idle' AND p.data -> 'state' ->> 'status' IN ('pending', 'running')`;
  const closed: string[] = [];
  for (const { sessionId, teamId } of candidates) {
    if (s.runners.get(sessionId) !== undefined || options.skip?.(sessionId)) continue;
    if (!(await s.lock.tryAcquire(sessionId))) continue; // running elsewhere
    try {
      // Under the lock: still idle, and which messages still hold an open tool.
      const open = await s.db.$queryRaw<{ messageId: string }[]>`
        SELECT DISTINCT p."messageId"
        FROM "Part" AS p JOIN "Session" AS s ON s.id = p."sessionId"
        WHERE p."sessionId" = ${sessionId} AND p.type = 'tool' AND s.status = 'idle'
          AND p.data -> 'state' ->> 'status' IN ('pending', 'running')`;
      const now = s.clock.now();
      for (const { messageId } of open) {
        const row = await s.db.message.findUnique({ where: { id: messageId } });
        const info = row ? messageFromRow(row) : undefined;
        if (info?.role === "assistant") await closeMessage(s, teamId, info, now);
      }
      if (open.length) closed.push(sessionId);
    } finally {
      await s.lock.release(sessionId);
    }
  }
  return closed;
}
