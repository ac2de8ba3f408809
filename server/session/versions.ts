import { z } from "zod";
import { ParleyError } from "../errors";
import { fn } from "../fn";
import * as Id from "../id";
import type { Context } from "../services";
import { sessionRow } from "./access";
import type { Info } from "./info";
import { type PartOf, WithParts } from "./message";
import * as Revert from "./revert";
import { sessionFromRow } from "./rows";
import * as Store from "./store";

/**
 * Versions of a conversation (issue 33): an edit & resend, a regenerate or a revert
 * followed by a new message puts the messages it replaced away as a version of the
 * conversation after the message before them (revert.ts `finalize`, store.ts
 * `swapVersions`). The versions of one point are numbered by their first message's id;
 * the current one is the messages stored after that point. Switching to another version
 * puts the current one away and brings that one back, the workspace's files included:
 * the current version's changes are undone as a revert undoes them, and the files that
 * version's patches touched come back from the snapshot taken when it was put away, as
 * an unrevert brings them back.
 *
 * A version put away inside another one (an edit within it) belongs to that one: it is
 * listed only while its point is in the conversation.
 */

export const VersionsInput = z.object({ sessionId: Id.schema("session") });
export type VersionsInput = z.input<typeof VersionsInput>;

export interface VersionEntry {
  /** The version's id; null for the current one. */
  id: string | null;
  /** Its first message. */
  firstId: string;
  preview: string;
}

/** The versions of one point of the conversation. */
export interface VersionPoint {
  /** The last message all of them share; null when they start the session. */
  baseId: string | null;
  /** The current version's first message (where the switcher shows); null when nothing follows the point now. */
  messageId: string | null;
  /** 1-based position of the current version among them (0 when nothing follows the point). */
  current: number;
  versions: VersionEntry[];
}

/** The points of a session's conversation that have versions, in the conversation's order. */
export const list = fn(VersionsInput, async (ctx: Context, input): Promise<VersionPoint[]> => {
  const row = await sessionRow(ctx, input.sessionId);
  // Asked again at every new message of the session: a session without versions costs one indexed query.
  const stored = await ctx.db.messageVersion.findMany({ where: { sessionId: row.id }, select: { id: true, baseId: true, firstId: true, preview: true }, orderBy: { firstId: "asc" } });
  if (!stored.length) return [];
  const bases = [...new Set(stored.flatMap((v) => (v.baseId === null ? [] : [v.baseId])))];
  const shown = new Set((await ctx.db.message.findMany({ where: { sessionId: row.id, id: { in: bases } }, select: { id: true } })).map((m) => m.id));
  const points = new Map<string | null, VersionEntry[]>();
  for (const v of stored) {
    if (v.baseId !== null && !shown.has(v.baseId)) continue;
    points.set(v.baseId, [...(points.get(v.baseId) ?? []), { id: v.id, firstId: v.firstId, preview: v.preview }]);
  }
  const out: VersionPoint[] = [];
  for (const [baseId, versions] of points) {
    const after = await ctx.db.message.findFirst({ where: { sessionId: row.id, ...(baseId === null ? {} : { id: { gt: baseId } }) }, orderBy: { id: "asc" }, select: { id: true } });
    const messageId = after?.id ?? null;
    const all = messageId ? [...versions, { id: null, firstId: messageId, preview: "" }].sort((a, b) => (a.firstId < b.firstId ? -1 : 1)) : versions;
    out.push({ baseId, messageId, current: all.findIndex((v) => v.id === null) + 1, versions: all });
  }
  return out.sort((a, b) => ((a.baseId ?? "") < (b.baseId ?? "") ? -1 : 1));
});

export const SwitchInput = z.object({ sessionId: Id.schema("session"), versionId: Id.schema("version") });
export type SwitchInput = z.input<typeof SwitchInput>;

const patchesIn = (messages: WithParts[]): PartOf<"patch">[] => messages.flatMap((m) => m.parts.filter((p): p is PartOf<"patch"> => p.type === "patch"));

/**
 * Switch a point of the conversation to one of its versions, its files included. Refused
 * (BUSY) while the session runs, a revert runs or another switch runs (one of two members
 * switching at once gets BUSY, or NOT_FOUND when the version was just brought back). A
 * pending revert becomes final first, as the next message would make it.
 */
export const switchTo = fn(SwitchInput, async (ctx: Context, input): Promise<Info> => {
  const row = await sessionRow(ctx, input.sessionId);
  return Revert.whileIdle(ctx, row, false, async () => {
    const fresh = await sessionRow(ctx, row.id);
    if (fresh.revert !== null) await Revert.finalize(ctx, row.teamId, row.id, undefined, fresh);
    const version = await ctx.db.messageVersion.findFirst({ where: { id: input.versionId, sessionId: row.id } });
    if (!version) throw ParleyError.notFound("version", input.versionId);
    const history = await Store.history(ctx.db, row.id);
    if (version.baseId !== null && !history.some((m) => m.info.id === version.baseId)) {
      throw ParleyError.invalid("this version belongs to another version of the conversation: switch to that one first");
    }
    const current = history.filter((m) => version.baseId === null || m.info.id > version.baseId);
    const theirs = patchesIn(WithParts.array().parse(version.messages));
    const ours = patchesIn(current);
    Revert.requireSnapshots(ctx, ours.length + theirs.length > 0);
    if (theirs.length > 0 && !version.snapshot) throw new ParleyError("CONFLICT", "the files of this version were not kept; it cannot be brought back");
    const project = await Revert.madeFiles(ctx, row);
    let snapshot: string | undefined;
    if (ctx.snapshots.available) {
      // The files as the current version left them (it comes back from there), then its changes undone.
      snapshot = await ctx.snapshots.track(project);
      for (const [hash, files] of Revert.restorations(ours)) Revert.logSkipped(row.id, await ctx.snapshots.restore(project, hash, files, ctx.sandbox.owner));
      if (version.snapshot && theirs.length > 0) Revert.logSkipped(version.id, await ctx.snapshots.restore(project, version.snapshot, Revert.filesOf(theirs), ctx.sandbox.owner));
    }
    await Store.swapVersions(ctx, row.teamId, row.id, { putAway: { baseId: version.baseId, messages: current, snapshot }, bringBack: version.id });
    if (ctx.snapshots.available) await Revert.resummarize(ctx, row, await ctx.snapshots.track(project));
    return sessionFromRow(await sessionRow(ctx, row.id), ctx.settings.publicUrl);
  });
});
