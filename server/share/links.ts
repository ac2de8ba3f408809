import { z } from "zod";
import type { Prisma } from "../db/client";
import type { Context } from "../services";
import { shareUrl } from "../session/rows";
import { CursorId, CursorTime, decodeCursor, encodeCursor } from "../cursor";
import { parse } from "../fn";

/** The team's shared links, for its members: newest first, revoked ones included unless asked otherwise. */

export const ListInput = z.object({
  /** "all" (default): active and revoked; false: active only; true: revoked only. */
  revoked: z.union([z.boolean(), z.literal("all")]).default("all"),
  cursor: z.string().max(200).optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListInput = z.input<typeof ListInput>;

export interface Link {
  id: string;
  url: string;
  sessionId: string;
  title: string;
  /** Set when the shared session is a child session. */
  parentId: string | undefined;
  created: number;
  /** When it was revoked; undefined while the link works. */
  revoked: number | undefined;
}

export interface LinkPage {
  items: Link[];
  nextCursor: string | undefined;
}

const Cursor = z.tuple([CursorTime, CursorId]);

export async function list(ctx: Context, input: ListInput = {}): Promise<LinkPage> {
  const { revoked, cursor, limit } = parse(ListInput, input);
  const where: Prisma.ShareWhereInput = { teamId: ctx.actor.teamId };
  if (revoked !== "all") where.revokedAt = revoked ? { not: null } : null;
  if (cursor) {
    const [created, id] = decodeCursor(Cursor, cursor);
    where.OR = [{ createdAt: { lt: new Date(created) } }, { createdAt: new Date(created), id: { lt: id } }];
  }
  const rows = await ctx.db.share.findMany({
    where,
    include: { session: { select: { title: true, parentId: true } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => ({
      id: row.id,
      url: shareUrl(row.id, ctx.settings.publicUrl),
      sessionId: row.sessionId,
      title: row.session.title,
      parentId: row.session.parentId ?? undefined,
      created: row.createdAt.getTime(),
      revoked: row.revokedAt?.getTime(),
    })),
    nextCursor:
      rows.length > limit && last ? encodeCursor([last.createdAt.getTime(), last.id]) : undefined,
  };
}
