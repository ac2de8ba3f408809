import { ADMIN_ROLES, requireRole } from "../auth/roles";
import type { Context } from "../services";

/**
 * Who may end a session's life or its link (SPEC §13): a session is deleted, archived or
 * unshared by its author or by a team owner/admin; any other member gets FORBIDDEN. The
 * role is read from the database, so a demotion counts at once.
 */
export async function requireAuthorOrAdmin(ctx: Pick<Context, "db" | "actor">, row: { authorId: string }, action: string): Promise<void> {
  if (row.authorId === ctx.actor.userId) return;
  await requireRole(ctx, ADMIN_ROLES, `${action} a session another member started`);
}
