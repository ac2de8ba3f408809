import { z } from "zod";
import { MAX_SECRET_VALUE_BYTES, SECRET_KINDS, SECRET_NAME_PATTERN, SECRET_NAME_RULE } from "../../lib/secrets";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import { ParleyError, isParleyError } from "../errors";
import * as Id from "../id";
import type { Acting } from "../actor";
import type { Clock } from "../clock";
import type { Db } from "../db/client";
import { type Keyring, sealedKeyId } from "./seal";

/** Who stores a secret: the acting member, the keys it is sealed under, and the clock of "updated at". */
interface SealingActor extends Acting {
  keyring: Keyring;
  /** Told when a secret changes: a team's models keep its provider keys (server/provider/team.ts). */
  models?: { forgetTeam?(teamId: string): void };
  clock: Clock;
}

/**
 * A team's secrets (SPEC §16): git credentials, provider keys, tool-server headers. Their
 * values are sealed at rest (seal.ts) and write-only: members see a secret's name, kind and
 * who set it when; owners and admins set, replace and remove them; only the server's own
 * processes read a value (`reveal`), which no transport exposes.
 */

export const Kind = z.enum(SECRET_KINDS);
export type Kind = z.infer<typeof Kind>;

export const Name = z.string().regex(new RegExp(`^${SECRET_NAME_PATTERN}$`), `A secret's name is ${SECRET_NAME_RULE}.`);

/** The most a value may hold (UTF-8 bytes). */
export const MAX_VALUE_BYTES = MAX_SECRET_VALUE_BYTES;
// The messages never repeat the value: a refused value must not come back in an error.
export const Value = z
  .string()
  .min(1, "A secret's value cannot be empty.")
  .refine((value) => !value.includes("\0"), "A secret's value cannot contain a NUL character.")
  .refine((value) => Buffer.byteLength(value, "utf8") <= MAX_VALUE_BYTES, `A secret's value holds at most ${MAX_VALUE_BYTES / 1024} KB.`);

/** What owners and admins set; OAuth tokens are only ever stored by the server itself (a tool server's "Connect"). */
export const SetInput = z.object({ name: Name, kind: Kind.exclude(["oauth"]), value: Value });
export type SetInput = z.infer<typeof SetInput>;

/** What anyone may know of a secret: never its value. */
export const Info = z.object({
  name: z.string(),
  kind: Kind,
  /** When it was first set and last set (ms since the epoch). */
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Who set it last; null when that user is gone. */
  updatedBy: z.object({ name: z.string() }).nullable(),
});
export type Info = z.infer<typeof Info>;

const METADATA = { name: true, kind: true, createdAt: true, updatedAt: true, updatedById: true } as const;
type Row = { name: string; kind: string; createdAt: Date; updatedAt: Date; updatedById: string | null };

async function infos(db: Db, rows: Row[]): Promise<Info[]> {
  const ids = [...new Set(rows.flatMap((row) => (row.updatedById ? [row.updatedById] : [])))];
  const users = ids.length ? await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : [];
  const names = new Map(users.map((user) => [user.id, user.name]));
  return rows.map((row) => {
    const by = row.updatedById ? names.get(row.updatedById) : undefined;
    return {
      name: row.name,
      kind: Kind.parse(row.kind),
      createdAt: row.createdAt.getTime(),
      updatedAt: row.updatedAt.getTime(),
      updatedBy: by === undefined ? null : { name: by },
    };
  });
}

/** The team's secrets, by name: any member may see them (never their values). */
export async function list(ctx: Acting): Promise<Info[]> {
  await requireRole(ctx, [...ADMIN_ROLES, "member"], "see the team's secrets");
  const rows = await ctx.db.teamSecret.findMany({ where: { teamId: ctx.actor.teamId }, select: METADATA, orderBy: { name: "asc" } });
  return infos(ctx.db, rows);
}

/** Creates or replaces a secret of the actor's team (owners and admins). */
export async function set(ctx: SealingActor, input: SetInput): Promise<Info> {
  await requireRole(ctx, ADMIN_ROLES, "set team secrets");
  const { name, kind, value } = SetInput.parse(input);
  const teamId = ctx.actor.teamId;
  const sealed = await ctx.keyring.seal({ teamId, name }, value);
  const now = new Date(ctx.clock.now());
  const row = await ctx.db.teamSecret.upsert({
    where: { teamId_name: { teamId, name } },
    create: { id: Id.ascending("secret"), teamId, name, kind, sealed, createdAt: now, updatedAt: now, updatedById: ctx.actor.userId },
    update: { kind, sealed, updatedAt: now, updatedById: ctx.actor.userId },
    select: METADATA,
  });
  ctx.models?.forgetTeam?.(teamId);
  const [info] = await infos(ctx.db, [row]);
  if (!info) throw new ParleyError("INTERNAL", `Team secret "${name}" was saved but could not be read back.`);
  return info;
}

/** Removes a secret of the actor's team (owners and admins); NOT_FOUND when it has none of that name. */
export async function remove(ctx: Acting & Pick<SealingActor, "models">, name: string): Promise<void> {
  await requireRole(ctx, ADMIN_ROLES, "remove team secrets");
  const { count } = await ctx.db.teamSecret.deleteMany({ where: { teamId: ctx.actor.teamId, name: Name.parse(name) } });
  ctx.models?.forgetTeam?.(ctx.actor.teamId);
  if (count === 0) throw ParleyError.notFound("Team secret", name);
}

/**
 * A secret's value, for the server's own processes only (a git credential helper, a
 * provider call): never returned by a transport, never put in an event, a log line, an
 * error, a sandbox's environment or a file. NOT_FOUND when the team has no such secret.
 */
export async function reveal(s: { db: Db; keyring: Keyring }, teamId: string, name: string): Promise<string> {
  const row = await s.db.teamSecret.findUnique({ where: { teamId_name: { teamId, name } }, select: { sealed: true } });
  if (!row) throw ParleyError.notFound("Team secret", name);
  return s.keyring.open({ teamId, name }, row.sealed);
}

/**
 * Stores a value the server itself obtained (a tool server's OAuth tokens), sealed like
 * any other secret; `updatedById` names the member whose action it came from.
 */
export async function store(s: { db: Db; keyring: Keyring; clock: Clock }, teamId: string, input: { name: string; kind: Kind; value: string; userId: string | null }): Promise<void> {
  const name = Name.parse(input.name);
  const sealed = await s.keyring.seal({ teamId, name }, input.value);
  const now = new Date(s.clock.now());
  await s.db.teamSecret.upsert({
    where: { teamId_name: { teamId, name } },
    create: { id: Id.ascending("secret"), teamId, name, kind: input.kind, sealed, createdAt: now, updatedAt: now, updatedById: input.userId },
    update: { kind: input.kind, sealed, updatedAt: now, updatedById: input.userId },
  });
}

/** A secret's value for the server's own use, or undefined when the team has none of that name. */
export async function revealIfAny(s: { db: Db; keyring: Keyring }, teamId: string, name: string): Promise<string | undefined> {
  const row = await s.db.teamSecret.findUnique({ where: { teamId_name: { teamId, name } }, select: { sealed: true } });
  return row ? s.keyring.open({ teamId, name }, row.sealed) : undefined;
}

/** Whether the team has a secret of that name (and its kind): for checks before a process needs the value. */
export async function kindOf(s: { db: Db }, teamId: string, name: string): Promise<Kind | undefined> {
  const row = await s.db.teamSecret.findUnique({ where: { teamId_name: { teamId, name } }, select: { kind: true } });
  return row ? Kind.parse(row.kind) : undefined;
}

/**
 * Re-seals every stored secret under the keyring's current key (`npm run secrets:rotate`).
 * A value set meanwhile is left as it was set (it is sealed under the current key already).
 * A value no key of the keyring opens is left alone and reported (team and name, never a
 * value), and the others are still re-sealed.
 */
export async function rotate(
  s: { db: Db },
  keyring: Keyring,
): Promise<{ resealed: number; current: number; failed: { teamId: string; name: string; reason: string }[] }> {
  const currentId = await keyring.currentId();
  const rows = await s.db.teamSecret.findMany({ select: { id: true, teamId: true, name: true, sealed: true, updatedAt: true }, orderBy: { id: "asc" } });
  let resealed = 0;
  let current = 0;
  const failed: { teamId: string; name: string; reason: string }[] = [];
  for (const row of rows) {
    const scope = { teamId: row.teamId, name: row.name };
    try {
      if (sealedKeyId(row.sealed) === currentId) {
        current++;
        continue;
      }
      const sealed = await keyring.seal(scope, await keyring.open(scope, row.sealed));
      // Only if nobody set it since it was read (updatedAt moves with every set; rotation keeps it).
      const { count } = await s.db.teamSecret.updateMany({ where: { id: row.id, updatedAt: row.updatedAt }, data: { sealed } });
      if (count === 1) resealed++;
      else current++;
    } catch (error) {
      if (!isParleyError(error) || error.code !== "CORRUPT") throw error;
      failed.push({ ...scope, reason: error.message });
    }
  }
  return { resealed, current, failed };
}
