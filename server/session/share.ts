import { randomBytes } from "node:crypto";
import { ParleyError } from "../errors";
import { sessionRow } from "./access";
import { requireAuthorOrAdmin } from "./ownership";
import type { Context } from "../services";
import type { Info } from "./info";
import { sessionFromRow } from "./rows";
import * as Store from "./store";

/**
 * Share links: an unguessable id. Sharing again while shared keeps the same URL; a revoked
 * URL stays dead for good, so sharing after a revoke makes a new one (the session's one
 * Share row takes the new id, and the old id exists nowhere any more).
 */

function shareId(): string {
  // 128 bits, URL-safe.
  return randomBytes(16).toString("base64url");
}

export async function share(ctx: Context, sessionId: string): Promise<Info> {
  if (ctx.settings.share === "disabled") throw new ParleyError("FORBIDDEN", "sharing is disabled on this server");
  const row = await sessionRow(ctx, sessionId);
  if (!row.share || row.share.revokedAt) {
    // One statement, so concurrent shares agree on one id: a row that is live is left
    // alone (its WHERE is checked again on the locked row), a revoked one gets a new id.
    const now = new Date(ctx.clock.now());
    await ctx.db.$executeRaw`
      INSERT INTO "Share" ("id", "sessionId", "teamId", "createdAt") VALUES (${shareId()}, ${row.id}, ${row.teamId}, ${now})
      ON CONFLICT ("sessionId") DO UPDATE SET "id" = EXCLUDED."id", "createdAt" = EXCLUDED."createdAt", "revokedAt" = NULL
      WHERE "Share"."revokedAt" IS NOT NULL`;
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
  await requireAuthorOrAdmin(ctx, row, "unshare");
  if (row.share && !row.share.revokedAt) {
    await ctx.db.share.update({ where: { id: row.share.id }, data: { revokedAt: new Date() } });
  }
  return published(ctx, row.id);
}
