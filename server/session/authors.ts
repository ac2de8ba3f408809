import type { Db } from "../db/client";
import type { Author } from "./message";

/**
 * The authors of a session's user messages, read once per page of messages: one
 * statement names every author the rows hold, and — when some row holds none (stored
 * before authors were recorded) — the session's author, who wrote those.
 */
export interface Authors {
  byId: ReadonlyMap<string, Author>;
  /** The session's author: the author of a user message whose row names none. */
  fallback: Author | undefined;
}

export const NO_AUTHORS: Authors = { byId: new Map(), fallback: undefined };

/** The rows' authors (user messages of `sessionId`), with their names. */
export async function authorsOf(db: Db, sessionId: string, rows: readonly { role: string; authorId: string | null }[]): Promise<Authors> {
  const users = rows.filter((row) => row.role === "user");
  if (users.length === 0) return NO_AUTHORS;
  const ids = [...new Set(users.flatMap((row) => (row.authorId ? [row.authorId] : [])))];
  const fallback = users.some((row) => row.authorId === null);
  // Two index lookups in one statement: the named authors, and the session's author when needed.
  const found = await db.$queryRaw<{ id: string; name: string; ofSession: boolean }[]>`
    SELECT u.id, u.name, false AS "ofSession" FROM "User" u WHERE u.id = ANY(${ids}::text[])
    UNION ALL
    SELECT u.id, u.name, true AS "ofSession" FROM "Session" s JOIN "User" u ON u.id = s."authorId" WHERE s.id = ${sessionId} AND ${fallback}`;
  const byId = new Map(found.map((user) => [user.id, { id: user.id, name: user.name }]));
  const own = found.find((user) => user.ofSession);
  return { byId, fallback: own ? { id: own.id, name: own.name } : undefined };
}

/** A user message row read with its author joined (`authorUserId`, `authorName`: the one it names, else the session's). */
export interface RowWithAuthor {
  role: string;
  authorId: string | null;
  authorUserId: string | null;
  authorName: string | null;
}

/** The authors that rows read with their authors joined name (no statement of its own). */
export function authorsOfJoined(rows: readonly RowWithAuthor[]): Authors {
  const byId = new Map<string, Author>();
  let fallback: Author | undefined;
  for (const row of rows) {
    if (row.role !== "user" || row.authorUserId === null || row.authorName === null) continue;
    const author = { id: row.authorUserId, name: row.authorName };
    if (row.authorId === null) fallback = author;
    else byId.set(row.authorId, author);
  }
  return { byId, fallback };
}

/** The author of one user message row: the one it names, else the session's. */
export function authorOf(authorId: string | null, authors: Authors): Author | undefined {
  return authorId ? authors.byId.get(authorId) : authors.fallback;
}
