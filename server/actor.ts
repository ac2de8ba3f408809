import type { Db } from "./db/client";

/** Who is acting: a user working inside one of their teams. */
export interface Actor {
  userId: string;
  teamId: string;
  /** The sign-in a request came through (live streams end with it: server/live/access.ts). */
  authSessionId?: string;
}

/** What a function needs that only reads or writes the database as the acting member. */
export interface Acting {
  db: Db;
  actor: Actor;
}
