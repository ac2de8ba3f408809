import { randomBytes } from "node:crypto";
import { ParleyError } from "../errors";
import { sessionRow } from "./access";
import type { Context } from "../services";
import type { Info } from "./info";
import { sessionFromRow } from "./rows";
import * as Store from "./store";

/** Share links: an unguessable id; sharing again keeps the same URL. */

function shareId(): string {
  // 128 bits, URL-safe.
  return randomBytes(16).toString("base64url");
}

export async function share(ctx: Context, sessionId: string): Promise<Info> {
  if (ctx.settings.share === "disabled") throw new ParleyError("FORBIDDEN", "sharing is disabled on this server");
  const row = await sessionRow(ctx, sessionId);
  if (!row.share || row.share.revokedAt) {
    // One statement (INSERT … ON CONFLICT), so concurrent shares agree on one id.
    await ctx.db.share.upsert({
      where: { sessionId: row.id },
      create: { id: shareId(), sessionId: row.id, teamId: row.teamId },
      update: { revokedAt: null },
    });
  }
  return published(ctx, row.id);
}

/** The session as it is now, published to everyone. */
async function published(ctx: Context, sessionId: string): Promise<Info> {
  const updated = await ctx.db.session.findUniqueOrThrow({ where: { id: sessionId }, include: { share: true } });
  const info = sessionFromRow(updated, ctx.settings.publicUrl);
  Store.publishSession(ctx, info);
  return info;
}

export async function unshare(ctx: Context, sessionId: string): Promise<Info> {
  const row = await sessionRow(ctx, sessionId);
  if (row.share && !row.share.revokedAt) {
    await ctx.db.share.update({ where: { id: row.share.id }, data: { revokedAt: new Date() } });
  }
  return published(ctx, row.id);
}
