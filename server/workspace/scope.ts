/** Live (not removed) workspaces a project may have at once, by default (config `limits.workspacesPerProject`). */
export const DEFAULT_MAX_WORKSPACES = 50;

/**
 * Where a session's files are snapshotted (SPEC §9): the store of its workspace, shared by
 * its children; sessions made before workspaces existed keep their project's store.
 */
export function snapshotScope(row: { workspaceId: string | null; projectId: string; directory: string }): { id: string; directory: string } {
  return { id: row.workspaceId ?? row.projectId, directory: row.directory };
}
