import { randomBytes } from "node:crypto";
import type { Db } from "../db/client";

const KEY = "auth.secret";

/**
 * The key better-auth signs sign-in cookies with: PARLEY_AUTH_SECRET when set, else one
 * made on first start and kept in the database, so every instance on it shares the key
 * and sign-ins survive restarts.
 */
export async function authSecret(db: Db, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  await db.setting.createMany({ data: [{ key: KEY, value: randomBytes(32).toString("base64url") }], skipDuplicates: true });
  const row = await db.setting.findUniqueOrThrow({ where: { key: KEY } });
  return row.value;
}
