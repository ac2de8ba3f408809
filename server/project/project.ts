import { z } from "zod";
import type { Context } from "../session/context";

export const Info = z.object({ id: z.string(), teamId: z.string(), name: z.string(), directory: z.string() });
export type Info = z.infer<typeof Info>;

export async function list(ctx: Pick<Context, "db" | "actor">): Promise<Info[]> {
  const rows = await ctx.db.project.findMany({ where: { teamId: ctx.actor.teamId }, orderBy: { createdAt: "asc" } });
  return rows.map((row) => ({ id: row.id, teamId: row.teamId, name: row.name, directory: row.directory }));
}
