import { z } from "zod";
import { fn } from "../fn";
import * as Id from "../id";
import type { Context, Services } from "../services";
import { type Project, ProjectMissingError } from "../snapshot/snapshot";
import { sessionRow } from "./access";
import * as Event from "./events";
import { type FileDiff, type PartOf, PatchPart, StepStartPart, type UserMessage, type WithParts } from "./message";
import * as Store from "./store";
import { snapshotScope } from "../workspace/scope";

/**
 * What a session changed in its project's files, from snapshots — only the files its own
 * steps' patches list (patchedFiles): the session's summary
 * (additions, deletions, files) from its first step's snapshot to the latest, kept on the
 * session row (lists and the dashboard read it from there) and published as
 * `session.diff`; and each user message's own turn diff, from the first snapshot of the
 * steps answering it to the latest, kept in that message's `summary.diffs`.
 */

export interface StepChanges {
  teamId: string;
  sessionId: string;
  project: Project;
  /** The user message the step answered. */
  user: UserMessage;
  /** The history the step was made from (the turn's earlier steps are in it). */
  history: WithParts[];
  /** The step's own first and last snapshots. */
  first: string;
  last: string;
}

/** After a step that took snapshots: the session's summary and the turn's diff, brought up to date. */
export async function afterStep(s: Services, step: StepChanges): Promise<void> {
  const sessionFirst = (await firstSnapshot(s, step.sessionId)) ?? step.first;
  await summarize(s, step.teamId, step.sessionId, step.project, sessionFirst, step.last);
  const turnFirst = turnSnapshot(step.history, step.user.id) ?? step.first;
  const own = await patchedFiles(s, step.sessionId, step.user.id);
  const diffs = (await fileDiffs(s, step.project, turnFirst, step.last)).filter((d) => own.has(d.file));
  await Store.writeMessage(s, step.teamId, { ...step.user, summary: { ...step.user.summary, diffs } });
}

/** The session's summary from `first` to `last` (of the files its own steps changed), stored and published. */
export async function summarize(s: Services, teamId: string, sessionId: string, project: Project, first: string, last: string): Promise<void> {
  const own = await patchedFiles(s, sessionId);
  const diffs = (await fileDiffs(s, project, first, last)).filter((d) => own.has(d.file));
  await Store.setSummary(s, sessionId, diffs);
  s.bus.publish(Event.Diff, { sessionId, diff: diffs }, { teamId, sessionId });
}

async function fileDiffs(s: Pick<Services, "snapshots">, project: Project, from: string, to: string): Promise<FileDiff[]> {
  if (from === to) return [];
  return (await s.snapshots.numstat(project, from, to)).map((c) => ({ file: c.file, additions: c.additions, deletions: c.deletions }));
}

/**
 * The files the session's own steps changed (their patch parts; of the steps answering
 * the user message `userId` only, when given). Two whole-project snapshots also differ
 * by what other sessions of the project wrote meanwhile: the session's summary and a
 * turn's diff list only these files (SPEC §9).
 */
export async function patchedFiles(s: Pick<Services, "db">, sessionId: string, userId?: string): Promise<Set<string>> {
  const rows =
    userId === undefined
      ? await s.db.$queryRaw<{ file: string }[]>`
          SELECT DISTINCT f AS file FROM "Part" p CROSS JOIN LATERAL jsonb_array_elements_text(p.data->'files') AS f
          WHERE p."sessionId" = ${sessionId} AND p.type = 'patch'`
      : await s.db.$queryRaw<{ file: string }[]>`
          SELECT DISTINCT f AS file FROM "Part" p CROSS JOIN LATERAL jsonb_array_elements_text(p.data->'files') AS f
          WHERE p."sessionId" = ${sessionId} AND p.type = 'patch'
            AND p."messageId" IN (SELECT id FROM "Message" WHERE "sessionId" = ${sessionId} AND role = 'assistant' AND data->>'parentId' = ${userId})`;
  return new Set(rows.map((row) => row.file));
}

/** The snapshot a session's first step started from, if any step took one. */
export async function firstSnapshot(s: Services, sessionId: string): Promise<string | undefined> {
  const rows = await s.db.$queryRaw<{ snapshot: string }[]>`
    SELECT data->>'snapshot' AS snapshot FROM "Part"
    WHERE "sessionId" = ${sessionId} AND type = 'step-start' AND data ? 'snapshot'
    ORDER BY id LIMIT 1`;
  return rows[0]?.snapshot;
}

/** The first snapshot of the steps answering a user message, in a history. */
export function turnSnapshot(history: WithParts[], userId: string): string | undefined {
  for (const message of history) {
    if (message.info.role !== "assistant" || message.info.parentId !== userId) continue;
    const start = message.parts.find((p): p is PartOf<"step-start"> => p.type === "step-start" && p.snapshot !== undefined);
    if (start?.snapshot) return start.snapshot;
  }
  return undefined;
}

export const TurnDiffInput = z.object({ sessionId: Id.schema("session"), messageId: Id.schema("message") });
export type TurnDiffInput = z.input<typeof TurnDiffInput>;

/** A member's view of a turn's diff (every file). */
export const diffOfTurn = fn(TurnDiffInput, async (ctx: Context, input): Promise<TurnDiff> => {
  const row = await sessionRow(ctx, input.sessionId);
  return turnDiff(ctx, snapshotScope(row), row.id, input.messageId);
});

/** What one user message's turn changed: its files and their unified diff (cut when very long). */
export interface TurnDiff {
  files: FileDiff[];
  text: string;
  truncated: boolean;
}

/** How many messages after a user message are looked at for its turn's steps. */
const TURN_MESSAGES = 500;

/**
 * The diff of a user message's turn: from the first snapshot of the steps answering it to
 * the last one; only files `visible` accepts are listed and shown. Empty without snapshots.
 */
export async function turnDiff(
  s: Pick<Services, "db" | "snapshots">,
  project: Project,
  sessionId: string,
  userMessageId: string,
  visible: (file: string) => boolean = () => true,
): Promise<TurnDiff> {
  const none: TurnDiff = { files: [], text: "", truncated: false };
  if (!s.snapshots.available) return none;
  const later = await s.db.message.findMany({
    where: { sessionId, id: { gt: userMessageId } },
    orderBy: { id: "asc" },
    take: TURN_MESSAGES,
    select: { id: true, role: true },
  });
  const next = later.findIndex((m) => m.role === "user");
  const answers = (next === -1 ? later : later.slice(0, next)).map((m) => m.id);
  if (answers.length === 0) return none;
  const steps = await s.db.part.findMany({
    where: { sessionId, messageId: { in: answers }, type: { in: ["step-start", "step-finish", "patch"] } },
    orderBy: { id: "asc" },
    select: { type: true, data: true },
  });
  // Only the files the turn's own steps changed (their patches), not what other sessions wrote meanwhile.
  const own = new Set(steps.filter((p) => p.type === "patch").flatMap((p) => PatchPart.pick({ files: true }).safeParse(p.data).data?.files ?? []));
  const snapshotOf = (data: unknown) => StepStartPart.pick({ snapshot: true }).safeParse(data).data?.snapshot;
  const first = steps.filter((p) => p.type === "step-start").map((p) => snapshotOf(p.data)).find((h) => h !== undefined);
  const last = steps.filter((p) => p.type === "step-finish").map((p) => snapshotOf(p.data)).findLast((h) => h !== undefined);
  if (!first || !last || first === last) return none;
  try {
    const files = (await fileDiffs(s, project, first, last)).filter((d) => own.has(d.file) && visible(d.file));
    const diff = await s.snapshots.diffText(project, first, last, { files: files.map((f) => f.file) });
    return { files, ...diff };
  } catch (error) {
    // A fork's workspace not made yet (or a removed one): no files to compare yet.
    if (error instanceof ProjectMissingError) return none;
    throw error;
  }
}
