/** Spare trees a project keeps checked out ahead by default (config `limits.spareWorkspaces`; 0 = none; spare.ts). */
export const DEFAULT_SPARE_WORKSPACES = 1;

/** Live (not removed) workspaces a project may have at once, by default (config `limits.workspacesPerProject`). */
export const DEFAULT_MAX_WORKSPACES = 50;

/**
 * Where a session's files are snapshotted (SPEC §9): the store of its workspace, shared by
 * its children; sessions made before workspaces existed keep their project's store.
 */
export function snapshotScope(row: { workspaceId: string | null; projectId: string; directory: string }): { id: string; directory: string } {
  return { id: row.workspaceId ?? row.projectId, directory: row.directory };
}

/**
 * A session's workspace as lists show it (the dashboard, the session list), read from its
 * row alone — no file is read: `uncommitted` is what the session's steps last did to its
 * files (a commit clears it), `branch` says where its commits are.
 */
export interface WorkspaceBadge {
  branch: string;
  /** pending: not made yet (no tool has needed files); failed: could not be made; removed: its session's tree is gone. */
  state: "pending" | "ready" | "failed" | "removed";
  uncommitted: boolean;
  /** none: no commit of its own yet; unpushed: commits not pushed or merged; pushed; merged. */
  commits: "none" | "unpushed" | "pushed" | "merged";
}

export const WORKSPACE_BADGE_FIELDS = { branch: true, state: true, dirty: true, baseCommit: true, headCommit: true, pushedCommit: true, mergedCommit: true } as const;

export function workspaceBadge(row: {
  branch: string;
  state: string;
  dirty: boolean;
  baseCommit: string | null;
  headCommit: string | null;
  pushedCommit: string | null;
  mergedCommit: string | null;
}): WorkspaceBadge {
  const state = row.state === "ready" || row.state === "failed" || row.state === "removed" ? row.state : "pending";
  const head = row.headCommit;
  const commits = !head || head === row.baseCommit ? "none" : head === row.mergedCommit ? "merged" : head === row.pushedCommit ? "pushed" : "unpushed";
  return { branch: row.branch, state, uncommitted: row.dirty, commits };
}
