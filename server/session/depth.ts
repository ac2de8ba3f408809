import type { Db } from "../db/client";

/**
 * How deep a session is among subagent sessions: 0 for a root session, 1 for its
 * children… Subagent sessions nest at most `Agents.maxDepth` levels (server/agent/agent.ts):
 * a session at that depth starts no subagent.
 */

/** How deep a session is (one statement); `parentId` as the caller read it: a root session's depth is known without asking. */
export async function depthOf(db: Db, session: { id: string; parentId: string | null }): Promise<number> {
  if (session.parentId === null) return 0;
  const sessionId = session.id;
  const [row] = await db.$queryRaw<Array<{ depth: number }>>`
    WITH RECURSIVE up(id, "parentId", depth) AS (
      SELECT id, "parentId", 0 FROM "Session" WHERE id = ${sessionId}
      UNION ALL
      SELECT s.id, s."parentId", up.depth + 1 FROM "Session" s JOIN up ON s.id = up."parentId" WHERE up.depth < 100
    )
    SELECT max(depth)::int AS depth FROM up`;
  return row?.depth ?? 0;
}

/** The refusal of a subagent beyond the depth cap. */
export function tooDeep(maxDepth: number): string {
  return `Subagents cannot go deeper: subagent sessions nest at most ${maxDepth} level${maxDepth === 1 ? "" : "s"} below their root session on this server. Do the work here instead.`;
}

