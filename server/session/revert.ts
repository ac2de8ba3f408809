import { z } from "zod";
import { Prisma } from "../db/client";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import type { Context, Services } from "../services";
import { PathChangingError } from "../snapshot/nofollow";
import type { Project, RestoreResult } from "../snapshot/snapshot";
import { sessionRow } from "./access";
import { start, unanswered } from "./loop";
import { Info } from "./info";
import type { PartOf, WithParts } from "./message";
import { sessionFromRow } from "./rows";
import { Runners } from "./runner";
import * as Store from "./store";
import * as Summary from "./summary";
import { snapshotScope } from "../workspace/scope";
import { logger } from "../log";

const log = logger("revert");

/**
 * Undo in a session (docs/ARCHITECTURE.md "Revert"): `revert` puts the project's files
 * back as they were before a message (or a part of an assistant message) and hides that
 * message and everything after it; `unrevert` brings the files back as they were just
 * before the revert and shows the messages again; the next prompt or compaction
 * `cleanup`s — the hidden messages then become a version of the conversation a member can
 * switch back to (versions.ts), and a part revert's hidden parts are deleted for good.
 *
 * The revert point is the last user message at or before the target; a part is its own
 * point when the message has text or tool parts before it. The files restored are those
 * listed by the patch parts after the point, each to its state in the earliest of those
 * patches (the snapshot its step started from); a file that did not exist then is
 * deleted. Both are refused while the session runs.
 */

type RevertState = NonNullable<Info["revert"]>;

export const RevertInput = z.object({
  sessionId: Id.schema("session"),
  messageId: Id.schema("message"),
  partId: Id.schema("part").optional(),
});
export type RevertInput = z.input<typeof RevertInput>;

/** Where a revert starts, and the patches after it (oldest first). */
export interface RevertPoint {
  messageId: string;
  partId?: string;
  patches: PartOf<"patch">[];
}

/** The revert point of a target in a history (oldest first), or undefined when the target is not in it. */
export function revertPoint(history: WithParts[], messageId: string, partId?: string): RevertPoint | undefined {
  let lastUser: string | undefined;
  let point: Omit<RevertPoint, "patches"> | undefined;
  const patches: PartOf<"patch">[] = [];
  for (const message of history) {
    if (message.info.role === "user") lastUser = message.info.id;
    const before: WithParts["parts"] = [];
    for (const part of message.parts) {
      if (point) {
        if (part.type === "patch") patches.push(part);
        continue;
      }
      if ((message.info.id === messageId && partId === undefined) || part.id === partId) {
        const keepsContent = before.some((p) => p.type === "text" || p.type === "tool");
        point = keepsContent && partId !== undefined ? { messageId: message.info.id, partId } : { messageId: lastUser ?? message.info.id };
        if (part.type === "patch") patches.push(part);
        continue;
      }
      before.push(part);
    }
    // A message with no parts can still be the target.
    if (!point && message.info.id === messageId && partId === undefined) point = { messageId: lastUser ?? message.info.id };
  }
  return point ? { ...point, patches } : undefined;
}

/** Each file of the patches, paired with the snapshot to restore it from (its earliest patch's). */
export function restorations(patches: PartOf<"patch">[]): Map<string, string[]> {
  const seen = new Set<string>();
  const byHash = new Map<string, string[]>();
  for (const patch of patches) {
    for (const file of patch.files) {
      if (seen.has(file)) continue;
      seen.add(file);
      byHash.set(patch.hash, [...(byHash.get(patch.hash) ?? []), file]);
    }
  }
  return byHash;
}

export function filesOf(patches: PartOf<"patch">[]): string[] {
  return [...new Set(patches.flatMap((p) => p.files))];
}

export type SessionRow = Awaited<ReturnType<typeof sessionRow>>;

export function projectOf(row: SessionRow): Project {
  return snapshotScope(row);
}

/**
 * The session's files for a revert or a version switch, which read and restore them: its
 * workspace made first when no tool has needed it yet (then its files are the base's, and
 * the turns being undone changed none).
 */
export async function madeFiles(s: Services, row: SessionRow): Promise<Project> {
  if (row.workspaceId && s.snapshots.available) await s.workspaces.ready(row.workspaceId);
  return snapshotScope(row);
}

function stateOf(row: SessionRow): RevertState | undefined {
  return Info.shape.revert.safeParse(row.revert).data;
}

/** The lock a revert or unrevert holds besides the run lock: a prompt tells it from a running loop by it. */
function revertingKey(sessionId: string): string {
  return `revert:${sessionId}`;
}

function busy(sessionId: string): ParleyError {
  return new ParleyError("BUSY", "the session is running; stop it or wait until it is idle", { details: { sessionId } });
}

/**
 * Run `work` (a revert, `hides`, or an unrevert) with the session's run lock held, so no
 * loop starts meanwhile, and its reverting lock, so no prompt is stored meanwhile
 * (`cleanup` refuses it as BUSY). BUSY when the session runs.
 *
 * A prompt whose check came just before the revert began may still be stored while it
 * runs: it is never hidden or lost — the revert becomes final at once for what came
 * before it (as the prompt would have made it), and the prompt is answered when the revert
 * is done.
 */
export async function whileIdle(ctx: Context, row: SessionRow, hides: boolean, work: () => Promise<Info>): Promise<Info> {
  try {
    return await locked(ctx, row, hides, work);
  } catch (error) {
    if (error instanceof PathChangingError) throw new ParleyError("CONFLICT", error.message, { details: { sessionId: row.id } });
    throw error;
  }
}

async function locked(ctx: Context, row: SessionRow, hides: boolean, work: () => Promise<Info>): Promise<Info> {
  if (await Runners.busy(ctx.lock, ctx.runners, row.id)) throw busy(row.id);
  if (!(await ctx.lock.tryAcquire(row.id))) throw busy(row.id);
  let late = false;
  try {
    if (!(await ctx.lock.tryAcquire(revertingKey(row.id)))) throw busy(row.id);
    try {
      const since = Id.ascending("message");
      let result: Info;
      try {
        result = await work();
      } finally {
        // Also after a failure: a prompt stored meanwhile is answered below.
        late = (await ctx.db.message.count({ where: { sessionId: row.id, role: "user", id: { gt: since } } })) > 0;
      }
      if (!late || !hides) return result;
      await finalize(ctx, row.teamId, row.id, since);
      return sessionFromRow(await sessionRow(ctx, row.id), ctx.settings.publicUrl);
    } finally {
      await ctx.lock.release(revertingKey(row.id));
    }
  } finally {
    await ctx.lock.release(row.id);
    if (late && (await unanswered(ctx, row.id))) await start(ctx, row.teamId, row.id);
  }
}

/** Without snapshots, only what changes no file can be done (hiding messages with no patch after them). */
export function requireSnapshots(s: Services, changesFiles: boolean): void {
  if (!s.snapshots.available && changesFiles) throw new ParleyError("CONFLICT", `restoring files needs snapshots, and ${s.snapshots.describe()}`);
}

/** Revert the session to before a message (or a part): files restored, later messages hidden. */
export const revert = fn(RevertInput, async (ctx: Context, input): Promise<Info> => {
  const row = await sessionRow(ctx, input.sessionId);
  return whileIdle(ctx, row, true, async () => {
    const history = await Store.history(ctx.db, row.id);
    const point = revertPoint(history, input.messageId, input.partId);
    if (!point) throw ParleyError.notFound(input.partId ? "part" : "message", input.partId ?? input.messageId);
    requireSnapshots(ctx, point.patches.length > 0);
    const project = await madeFiles(ctx, row);
    if (!ctx.snapshots.available) return Store.updateSession(ctx, row.id, { revert: { messageId: point.messageId, ...(point.partId ? { partId: point.partId } : {}) } });
    const previous = stateOf(row);
    // Reverting again starts from the files as they were before the first revert.
    if (previous?.snapshot) await undoRevert(ctx, project, history, previous);
    const snapshot = previous?.snapshot ?? (await ctx.snapshots.track(project));
    for (const [hash, files] of restorations(point.patches)) logSkipped(row.id, await ctx.snapshots.restore(project, hash, files, ctx.sandbox.owner));
    const now = await ctx.snapshots.track(project);
    const diff = now === snapshot ? "" : (await ctx.snapshots.diffText(project, now, snapshot)).text;
    const state: RevertState = { messageId: point.messageId, ...(point.partId ? { partId: point.partId } : {}), snapshot, ...(diff ? { diff } : {}) };
    const info = await Store.updateSession(ctx, row.id, { revert: state });
    await resummarize(ctx, row, now);
    return info;
  });
});

export const UnrevertInput = z.object({ sessionId: Id.schema("session") });
export type UnrevertInput = z.input<typeof UnrevertInput>;

/** Undo a revert: the files as they were just before it, the hidden messages shown again. */
export const unrevert = fn(UnrevertInput, async (ctx: Context, input): Promise<Info> => {
  const row = await sessionRow(ctx, input.sessionId);
  return whileIdle(ctx, row, false, async () => {
    const state = stateOf(row);
    if (!state) return sessionFromRow(row, ctx.settings.publicUrl);
    requireSnapshots(ctx, state.snapshot !== undefined);
    const project = await madeFiles(ctx, row);
    await undoRevert(ctx, project, await Store.history(ctx.db, row.id), state);
    const info = await Store.updateSession(ctx, row.id, { revert: Prisma.DbNull });
    if (state.snapshot) await resummarize(ctx, row, state.snapshot);
    return info;
  });
});

/** The files a revert touched, back to the snapshot taken just before it. */
async function undoRevert(s: Services, project: Project, history: WithParts[], state: RevertState): Promise<void> {
  if (!state.snapshot) return;
  const point = revertPoint(history, state.messageId, state.partId);
  if (point) logSkipped(state.messageId, await s.snapshots.restore(project, state.snapshot, filesOf(point.patches), s.sandbox.owner));
}

/** Files a restore left alone (below a symlink, or where a folder now stands): said in the log. */
export function logSkipped(what: string, result: RestoreResult): void {
  if (result.skipped.length) log.warn(`${what}: left as they are (below a symlink, or a folder there now): ${result.skipped.join(", ")}`);
}

/** The session's summary after its files changed outside a step. */
export async function resummarize(s: Services, row: SessionRow, current: string): Promise<void> {
  const first = await Summary.firstSnapshot(s, row.id);
  if (first) await Summary.summarize(s, row.teamId, row.id, projectOf(row), first, current);
}

/**
 * Make a revert final (before the next prompt or compaction): the hidden messages become
 * an earlier version — or, for a part, that part and what follows it are deleted — each
 * with its `message.removed` / `message.part.removed` event, and the revert is cleared. Refused
 * (BUSY) while a revert or unrevert runs: the prompt about to be stored would be hidden
 * by it, or its files changed under it.
 */
export async function cleanup(s: Services, teamId: string, sessionId: string, known?: { revert: unknown }): Promise<void> {
  if (await s.lock.isRunning(revertingKey(sessionId))) {
    throw new ParleyError("BUSY", "the session's files are being reverted; send the message again when that is done", { details: { sessionId } });
  }
  await finalize(s, teamId, sessionId, undefined, known);
}

/**
 * `cleanup` without the check, of the messages before `until` only when given. A message
 * revert's hidden messages become a version of the conversation after the message before
 * them (versions.ts: a member can switch back to them, files included); a part revert's
 * parts and the messages after them are deleted.
 */
export async function finalize(s: Services, teamId: string, sessionId: string, until?: string, known?: { revert: unknown }): Promise<void> {
  // The caller may have just read the session row: its revert state saves a query.
  const row = known ?? (await s.db.session.findUnique({ where: { id: sessionId }, select: { revert: true } }));
  const state = Info.shape.revert.safeParse(row?.revert).data;
  if (!state) return;
  const history = (await Store.history(s.db, sessionId)).filter((m) => until === undefined || m.info.id <= until);
  if (state.partId === undefined) {
    const baseId = history.findLast((m) => m.info.id < state.messageId)?.info.id ?? null;
    const messages = history.filter((m) => m.info.id >= state.messageId);
    await Store.swapVersions(s, teamId, sessionId, { putAway: { baseId, messages, snapshot: state.snapshot } });
  } else {
    for (const message of history) {
      if (message.info.id > state.messageId) await Store.removeMessage(s, teamId, sessionId, message.info.id);
      else if (message.info.id === state.messageId) for (const part of message.parts) if (part.id >= state.partId) await Store.removePart(s, teamId, part);
    }
  }
  await Store.updateSession(s, sessionId, { revert: Prisma.DbNull });
}
