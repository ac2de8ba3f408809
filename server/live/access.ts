import { z } from "zod";
import { type Bus, define, is } from "../bus/bus";
import type { Db } from "../db/client";
import { logger } from "../log";

const log = logger("live");

/**
 * Live streams end when the access they were opened with ends: a member removed from the
 * team, a sign-in ended (signing out, sessions revoked, the user deleted). Whoever ends the
 * access publishes `access.ended` (server/auth/auth.ts hooks), which reaches every instance
 * (the PostgreSQL bridge); each instance ends its matching streams at once. As a backstop
 * for what ends access without that event (a sign-in expiring, a row deleted by hand), every
 * stream's sign-in and membership are checked again every RECHECK_MS, in one query.
 */

/** Access that ended: all of `userId`'s, or only in `teamId`, or only through one sign-in. */
export const AccessEnded = define(
  "access.ended",
  z.object({ userId: z.string(), teamId: z.string().optional(), authSessionId: z.string().optional() }),
  { audience: [] },
);
export type AccessEnded = z.infer<typeof AccessEnded.schema>;

/** What a member's stream was opened with. */
export interface Access {
  userId: string;
  teamId: string;
  /** The sign-in (better-auth session id) the stream was opened through. */
  authSessionId: string;
}

export const RECHECK_MS = 15_000;

interface Watched extends Access {
  end(): void;
}

export class AccessWatch {
  private readonly streams = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  constructor(
    bus: Bus,
    private readonly db: Db,
    private readonly recheckMs = RECHECK_MS,
  ) {
    bus.subscribeAll((event) => {
      if (is(event, AccessEnded)) this.ended(AccessEnded.schema.parse(event.payload));
    });
  }

  /** Call `end` once `access` ends; returns the way to stop watching (the stream ended on its own). */
  watch(access: Access, end: () => void): () => void {
    const entry: Watched = { ...access, end };
    this.streams.add(entry);
    this.timer ??= setInterval(() => void this.recheck(), this.recheckMs).unref();
    return () => {
      this.streams.delete(entry);
      if (this.streams.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  get size(): number {
    return this.streams.size;
  }

  private ended(access: AccessEnded): void {
    for (const stream of [...this.streams]) {
      if (stream.userId !== access.userId) continue;
      if (access.teamId !== undefined && access.teamId !== stream.teamId) continue;
      if (access.authSessionId !== undefined && access.authSessionId !== stream.authSessionId) continue;
      this.stop(stream);
    }
  }

  private stop(stream: Watched): void {
    this.streams.delete(stream);
    stream.end();
  }

  /** Ends the streams whose sign-in is gone or expired, or whose user is no longer in the team. */
  async recheck(): Promise<void> {
    if (this.checking || this.streams.size === 0) return;
    this.checking = true;
    try {
      const streams = [...this.streams];
      const keys = [...new Map(streams.map((s) => [`${s.authSessionId}\0${s.userId}\0${s.teamId}`, s])).values()];
      const lost = await this.db.$queryRaw<{ sid: string; uid: string; tid: string }[]>`
        SELECT k.sid, k.uid, k.tid
        FROM unnest(${keys.map((k) => k.authSessionId)}::text[], ${keys.map((k) => k.userId)}::text[], ${keys.map((k) => k.teamId)}::text[]) AS k(sid, uid, tid)
        WHERE NOT EXISTS (SELECT 1 FROM "AuthSession" a WHERE a.id = k.sid AND a."userId" = k.uid AND a."expiresAt" > now())
           OR NOT EXISTS (SELECT 1 FROM "Membership" m WHERE m."userId" = k.uid AND m."teamId" = k.tid)`;
      const gone = new Set(lost.map((row) => `${row.sid}\0${row.uid}\0${row.tid}`));
      for (const stream of streams) if (gone.has(`${stream.authSessionId}\0${stream.userId}\0${stream.teamId}`)) this.stop(stream);
    } catch (error) {
      log.error("could not check the access of open streams", error);
    } finally {
      this.checking = false;
    }
  }
}
