import type { Context } from "../services";
import { StepStartPart } from "./message";
import { Runners } from "./runner";
import { sessionRow } from "./access";
import { treeOf } from "./session";

type SessionRow = Awaited<ReturnType<typeof sessionRow>>;

/**
 * A session made before workspaces existed works in its project's own folder. At its next
 * prompt (when nothing of it runs) it moves into a workspace of its own, made like a fork's:
 * from the project's default branch, then its files as they were at its last step — read
 * from the project's snapshot store, which the workspace's store borrows, so its earlier
 * turns can still be reverted. Its children move with it. From then on no agent writes
 * the project's folder. Answers the row as it now is.
 */
export async function intoWorkspace(ctx: Context, row: SessionRow): Promise<SessionRow> {
  if (row.workspaceId || row.parentId) return row;
  if (await Runners.busy(ctx.lock, ctx.runners, row.id)) return row;
  const steps = await ctx.db.part.findMany({ where: { sessionId: row.id, type: { in: ["step-start", "step-finish"] } }, orderBy: { id: "asc" }, select: { data: true } });
  const snapshot = steps.map((part) => StepStartPart.pick({ snapshot: true }).safeParse(part.data).data?.snapshot).findLast((hash) => hash !== undefined) ?? null;
  const project = await ctx.db.project.findUniqueOrThrow({ where: { id: row.projectId }, select: { id: true, defaultBranch: true } });
  const tree = await treeOf(ctx, row.id);
  try {
    await ctx.db.$transaction(async (tx) => {
      const workspace = await ctx.workspaces.plan(tx, { teamId: row.teamId, project, slug: row.slug, fork: { from: row.projectId, workspaceId: null, snapshot } });
      const moved = await tx.session.updateMany({ where: { id: { in: tree }, workspaceId: null }, data: { workspaceId: workspace.id, directory: workspace.directory } });
      // Another request moved it first: this one's workspace is not kept.
      if (moved.count === 0) throw new Moved();
    });
  } catch (error) {
    if (!(error instanceof Moved)) throw error;
  }
  return sessionRow(ctx, row.id);
}

class Moved extends Error {}
