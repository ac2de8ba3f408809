import { Spending } from "../spending";
import { type Db, Prisma } from "../db/client";
import type { Message as MessageRow, Part as PartRow } from "../db/generated/client";
import type { Bus } from "../bus/bus";
import type { Clock } from "../clock";
import * as Event from "./events";
import type { Info } from "./info";
import { type RowWithAuthor, authorsOfJoined } from "./authors";
import { type Author, type FileDiff, type Message, type Part, type Tokens, type UserMessage, WithParts } from "./message";
import { ParleyError } from "../errors";
import * as Id from "../id";
import { z } from "zod";
import { SHARE_COLUMNS, type SessionWithShareColumns, messageAuthorId, messageData, messageFromRow, partData, partFromRow, sessionFromRow, withShare } from "./rows";

/** What the store writes and publishes with (the server's services have them all). */
export interface StoreServices {
  db: Db;
  bus: Bus;
  clock: Clock;
  settings: { publicUrl?: string | undefined };
}

/**
 * The one write path of session data. Only this module writes message and part rows and
 * the session's totals, and publishes `message.*`, `message.part.*` and
 * `session.updated` — store first, then publish, so a client that re-reads after an
 * event always finds at least what the event said (except for the parts of a running
 * turn, which its TurnWriter publishes first and stores as their durability says: at
 * once, with the turn's next write, or within flushMs — writer.ts). The prompt loop, the
 * processor, subtasks and a member's commands (through a TurnWriter), compaction,
 * recovery, prune, titles, fork and the
 * session's own operations all come through here. It also holds the one loader of a
 * session's whole history (and of its last reply).
 */

type Tx = Prisma.TransactionClient | Db;

function scope(teamId: string, sessionId: string) {
  return { teamId, sessionId };
}

/** Every message of a session with its parts (user messages with their authors), oldest first. A row that cannot be read throws. */
export async function history(db: Db, sessionId: string): Promise<WithParts[]> {
  // Read at every step of every turn: plain statements (Prisma's model queries cost about
  // twice the CPU of the same SQL, bench:stream); each user message with its author (the one
  // it names, else the session's) in the same statement.
  const [messages, parts] = await Promise.all([
    db.$queryRaw<Array<MessageRow & RowWithAuthor>>`
      SELECT m.id, m."sessionId", m.role, m."authorId", m.data, m."timeCreated", u.id AS "authorUserId", u.name AS "authorName"
      FROM "Message" m
      LEFT JOIN "User" u ON m.role = 'user' AND u.id = COALESCE(m."authorId", (SELECT s."authorId" FROM "Session" s WHERE s.id = ${sessionId}))
      WHERE m."sessionId" = ${sessionId} ORDER BY m.id`,
    db.$queryRaw<PartRow[]>`SELECT id, "messageId", "sessionId", type, data FROM "Part" WHERE "sessionId" = ${sessionId} ORDER BY id`,
  ]);
  const authors = authorsOfJoined(messages);
  const byMessage = new Map<string, Part[]>();
  for (const row of parts) {
    const list = byMessage.get(row.messageId) ?? [];
    list.push(partFromRow(row));
    byMessage.set(row.messageId, list);
  }
  return messages.map((row) => ({ info: messageFromRow(row, authors), parts: byMessage.get(row.id) ?? [] }));
}

/**
 * A session's last assistant message with its text parts in order (not its whole history),
 * in one statement (Prisma's include would make two); undefined when it has none. Read for
 * a finished subagent whose own events did not tell its reply whole (subagent.ts).
 */
export async function lastReply(db: Db, sessionId: string): Promise<WithParts | undefined> {
  const [row] = await db.$queryRaw<Array<MessageRow & { parts: PartRow[] }>>`
    SELECT m.id, m."sessionId", m.role, m."authorId", m.data, m."timeCreated",
      COALESCE((
        SELECT json_agg(json_build_object('id', p.id, 'messageId', p."messageId", 'sessionId', p."sessionId", 'type', p.type, 'data', p.data) ORDER BY p.id)
        FROM "Part" p WHERE p."messageId" = m.id AND p.type = 'text'
      ), '[]'::json) AS parts
    FROM "Message" m
    WHERE m."sessionId" = ${sessionId} AND m.role = 'assistant'
    ORDER BY m.id DESC LIMIT 1`;
  return row ? { info: messageFromRow(row), parts: row.parts.map(partFromRow) } : undefined;
}

/**
 * An upper bound of the estimated tokens (characters / 4, each rounded: prune.ts) of a
 * session's completed tool outputs not yet pruned, read without loading them: UTF-8 bytes
 * are never fewer than the UTF-16 characters JavaScript counts, and each rounding adds at
 * most a half.
 */
export async function toolOutputTokensBound(db: Db, sessionId: string): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ bound: number }>>`
    SELECT COALESCE(SUM(octet_length(data->'state'->>'output')), 0)::float8 / 4 + COUNT(*)::float8 / 2 AS bound
    FROM "Part"
    WHERE "sessionId" = ${sessionId} AND type = 'tool' AND data->'state'->>'status' = 'completed' AND data->'state'->'time'->'compacted' IS NULL`;
  return row?.bound ?? 0;
}

// ---------------------------------------------------------------- messages and parts

/** Write (create or replace) a message and tell everyone. A user message's author is stored when it is created, never changed. */
export async function writeMessage(s: StoreServices, teamId: string, info: Message): Promise<void> {
  // Several times per step: one plain statement.
  await s.db.$executeRaw`
    INSERT INTO "Message" (id, "sessionId", role, "authorId", data, "timeCreated")
    VALUES (${info.id}, ${info.sessionId}, ${info.role}, ${messageAuthorId(info)}, ${JSON.stringify(messageData(info))}::jsonb, ${new Date(info.time.created)})
    ON CONFLICT (id) DO UPDATE SET data = EXCLUDED.data, role = EXCLUDED.role`;
  s.bus.publish(Event.MessageUpdated, { info }, scope(teamId, info.sessionId));
}

/**
 * A new user message with its parts, stored together, then published in order (with its
 * author: `authorId`, the member who wrote it, or — for a message the server writes
 * itself — the session's author). Returns the message as published.
 */
export async function createUserMessage(s: StoreServices, teamId: string, info: UserMessage, parts: Part[], authorId?: string): Promise<UserMessage> {
  // One statement (atomic on its own): the message, then its parts; it answers with the author's name.
  const rows = JSON.stringify(parts.map((part) => ({ id: part.id, messageId: part.messageId, sessionId: part.sessionId, type: part.type, data: partData(part) })));
  const [author] = await s.db.$queryRaw<Author[]>`
    WITH message AS (
      INSERT INTO "Message" (id, "sessionId", role, "authorId", data, "timeCreated")
      VALUES (${info.id}, ${info.sessionId}, 'user', ${authorId ?? null}, ${JSON.stringify(messageData(info))}::jsonb, ${new Date(info.time.created)})
      RETURNING id, "authorId"
    ), written AS (
      INSERT INTO "Part" (id, "messageId", "sessionId", type, data)
      SELECT r.id, message.id, r."sessionId", r.type, r.data
      FROM message, jsonb_to_recordset(${rows}::jsonb) AS r(id text, "messageId" text, "sessionId" text, type text, data jsonb)
    )
    SELECT u.id, u.name
    FROM message JOIN "Session" s ON s.id = ${info.sessionId} JOIN "User" u ON u.id = COALESCE(message."authorId", s."authorId")`;
  const { author: _claimed, ...rest } = info;
  const written: UserMessage = author ? { ...rest, author: { id: author.id, name: author.name } } : rest;
  s.bus.publish(Event.MessageUpdated, { info: written }, scope(teamId, info.sessionId));
  for (const part of parts) s.bus.publish(Event.PartUpdated, { part }, scope(teamId, info.sessionId));
  return written;
}

/**
 * Tell everyone about a part change now (persisted separately: see persistParts). A
 * streamed delta is published `trusted`: it was built by the processor from typed parts,
 * and re-validating the whole part on every token would cost time proportional to its length.
 */
export function publishPart(s: StoreServices, teamId: string, part: Part, delta?: string): void {
  s.bus.publish(Event.PartUpdated, delta === undefined ? { part } : { part, delta }, scope(teamId, part.sessionId), { trusted: delta !== undefined });
}

/**
 * Store parts (create or replace each) in one statement; returns how many rows were
 * written. The parts must have distinct ids.
 *
 * `ended`: the parts are mostly ends of parts already stored (a text's end, a tool's
 * result: TurnWriter.flush), whose words the database computes as they are written
 * (parley_part_search, for search). They are then updated first and only the others
 * inserted: an upsert would compute the words twice, for the insert it gives up and for
 * the update (a long answer's words take milliseconds). Streamed changes (most writes, and
 * without words) keep the plain upsert, the cheaper statement.
 */
export async function persistParts(db: Tx, parts: Part[], ended = false): Promise<number> {
  if (!parts.length) return 0;
  const rows = JSON.stringify(parts.map((part) => ({ id: part.id, messageId: part.messageId, sessionId: part.sessionId, type: part.type, data: partData(part) })));
  if (ended) {
    // A part removed meanwhile is inserted again, as the upsert would; one inserted meanwhile is updated by the conflict clause.
    await db.$executeRaw`
      WITH r AS MATERIALIZED (
        SELECT * FROM jsonb_to_recordset(${rows}::jsonb) AS r(id text, "messageId" text, "sessionId" text, type text, data jsonb)
      ), changed AS (
        UPDATE "Part" p SET type = r.type, data = r.data FROM r WHERE p.id = r.id RETURNING p.id
      )
      INSERT INTO "Part" (id, "messageId", "sessionId", type, data)
      SELECT r.id, r."messageId", r."sessionId", r.type, r.data FROM r WHERE r.id NOT IN (SELECT id FROM changed)
      ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, data = EXCLUDED.data`;
    return parts.length;
  }
  await db.$executeRaw`
    INSERT INTO "Part" (id, "messageId", "sessionId", type, data)
    SELECT id, "messageId", "sessionId", type, data
    FROM jsonb_to_recordset(${rows}::jsonb) AS r(id text, "messageId" text, "sessionId" text, type text, data jsonb)
    ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, data = EXCLUDED.data`;
  return parts.length;
}

/** Write one part and tell everyone. */
export async function writePart(s: StoreServices, teamId: string, part: Part, delta?: string): Promise<void> {
  await persistParts(s.db, [part]);
  publishPart(s, teamId, part, delta);
}

export async function removePart(s: StoreServices, teamId: string, part: Pick<Part, "id" | "sessionId" | "messageId">): Promise<number> {
  const { count } = await s.db.part.deleteMany({ where: { id: part.id, messageId: part.messageId, sessionId: part.sessionId } });
  s.bus.publish(Event.PartRemoved, { sessionId: part.sessionId, messageId: part.messageId, partId: part.id }, scope(teamId, part.sessionId));
  return count;
}

/** Delete a message with its parts; returns whether it existed (published only then). */
export async function removeMessage(s: StoreServices, teamId: string, sessionId: string, messageId: string): Promise<boolean> {
  const removed = await s.db.$transaction([
    s.db.part.deleteMany({ where: { messageId, sessionId } }),
    s.db.message.deleteMany({ where: { id: messageId, sessionId } }),
  ]);
  if (removed[1].count === 0) return false;
  publishMessageRemoved(s, teamId, sessionId, messageId);
  return true;
}

/** Tell the session's viewers a message is gone (its row deleted by the caller). */
export function publishMessageRemoved(s: StoreServices, teamId: string, sessionId: string, messageId: string): void {
  s.bus.publish(Event.MessageRemoved, { sessionId, messageId }, scope(teamId, sessionId));
}

/** Copies of messages and parts (a fork), inside the caller's transaction. */
export async function insertCopies(tx: Tx, messages: Message[], parts: Part[]): Promise<void> {
  if (messages.length) {
    await tx.message.createMany({
      data: messages.map((m) => ({ id: m.id, sessionId: m.sessionId, role: m.role, authorId: messageAuthorId(m), data: messageData(m), timeCreated: new Date(m.time.created) })),
    });
  }
  if (parts.length) {
    await tx.part.createMany({ data: parts.map((p) => ({ id: p.id, messageId: p.messageId, sessionId: p.sessionId, type: p.type, data: partData(p) })) });
  }
}

/** The statements deleting a session's messages and parts, for the caller's transaction. */
export function deleteContents(db: Db, sessionId: string) {
  return [db.part.deleteMany({ where: { sessionId } }), db.message.deleteMany({ where: { sessionId } })] as const;
}

// ---------------------------------------------------------------- versions

/** Messages put away as a version of the conversation after `baseId` (oldest first), with the files' snapshot then. */
export interface PutAway {
  baseId: string | null;
  messages: WithParts[];
  snapshot?: string | undefined;
}

const Stored = z.array(WithParts);

/** The switcher's words for a version: its first message's text, cut short. */
function previewOf(messages: WithParts[]): string {
  const text = messages[0]?.parts.flatMap((p) => (p.type === "text" && !p.synthetic ? [p.text.trim()] : [])).join(" ") ?? "";
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function messageRows(messages: WithParts[]): string {
  return JSON.stringify(
    messages.map(({ info }) => ({ id: info.id, role: info.role, authorId: messageAuthorId(info), data: messageData(info), timeCreated: new Date(info.time.created).toISOString() })),
  );
}

/** Store a version's messages again (an author who is gone meanwhile becomes the session's). */
async function restoreRows(tx: Prisma.TransactionClient, sessionId: string, messages: WithParts[]): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "Message" (id, "sessionId", role, "authorId", data, "timeCreated")
    SELECT r.id, ${sessionId}, r.role, (SELECT u.id FROM "User" u WHERE u.id = r."authorId"), r.data, r."timeCreated"::timestamptz
    FROM jsonb_to_recordset(${messageRows(messages)}::jsonb) AS r(id text, role text, "authorId" text, data jsonb, "timeCreated" text)`;
  await persistParts(tx, messages.flatMap((m) => m.parts));
}

/**
 * Change which version of a point of the conversation is stored as messages, in one
 * transaction: `putAway` (when given) becomes a version — its messages and parts leave
 * Message and Part — and `bringBack` (a version's id, when given) has its messages and
 * parts stored again, the version row gone. Then `message.removed` for each message put
 * away, `message.updated` and `message.part.updated` for each brought back. NOT_FOUND
 * when that version is gone (a member switched to it meanwhile). Returns the new version's id.
 */
export async function swapVersions(s: StoreServices, teamId: string, sessionId: string, change: { putAway?: PutAway | undefined; bringBack?: string }): Promise<string | undefined> {
  const away = change.putAway?.messages.length ? change.putAway : undefined;
  const id = away ? Id.ascending("version") : undefined;
  const back = await s.db.$transaction(async (tx) => {
    let restored: WithParts[] = [];
    if (change.bringBack !== undefined) {
      const [row] = await tx.$queryRaw<Array<{ messages: unknown }>>`
        DELETE FROM "MessageVersion" WHERE id = ${change.bringBack} AND "sessionId" = ${sessionId} RETURNING messages`;
      if (!row) throw ParleyError.notFound("version", change.bringBack);
      restored = Stored.parse(row.messages);
    }
    if (away && id) {
      const ids = away.messages.map((m) => m.info.id);
      await tx.messageVersion.create({
        data: { id, sessionId, baseId: away.baseId, firstId: ids[0] ?? "", preview: previewOf(away.messages), messages: JSON.parse(JSON.stringify(away.messages)) as Prisma.InputJsonValue, snapshot: away.snapshot ?? null },
      });
      await tx.part.deleteMany({ where: { sessionId, messageId: { in: ids } } });
      await tx.message.deleteMany({ where: { sessionId, id: { in: ids } } });
    }
    if (restored.length) await restoreRows(tx, sessionId, restored);
    return restored;
  });
  for (const m of away?.messages ?? []) s.bus.publish(Event.MessageRemoved, { sessionId, messageId: m.info.id }, scope(teamId, sessionId));
  for (const m of back) {
    s.bus.publish(Event.MessageUpdated, { info: m.info }, scope(teamId, sessionId));
    for (const part of m.parts) s.bus.publish(Event.PartUpdated, { part }, scope(teamId, sessionId));
  }
  return id;
}

// ---------------------------------------------------------------- the session row

/** Tell everyone about a session's new state. */
export function publishSession(s: StoreServices, info: Info): void {
  s.bus.publish(Event.Updated, { info }, scope(info.teamId, info.id));
}

/**
 * Change the session row, then publish its new state. The row and its share link are read
 * at once, not in a transaction (Prisma's `update` with an `include` costs four statements).
 * For the occasional changes (title, rules, revert…); those every turn makes go through
 * `changeSession` below.
 */
export async function updateSession(s: StoreServices, sessionId: string, data: Prisma.SessionUpdateInput): Promise<Info> {
  const [row, share] = await Promise.all([s.db.session.update({ where: { id: sessionId }, data }), s.db.share.findUnique({ where: { sessionId } })]);
  const info = sessionFromRow({ ...row, share }, s.settings.publicUrl);
  publishSession(s, info);
  return info;
}

/**
 * `updateSession` in one statement, for the changes every step makes (its usage, its
 * summary): the row is changed and read back with its share link by one UPDATE … RETURNING.
 * `set` is the SET list, in SQL.
 */
async function changeSession(s: StoreServices, sessionId: string, set: Prisma.Sql): Promise<Info> {
  const info = await changeSessionIf(s, sessionId, set, Prisma.empty);
  if (!info) throw new Prisma.PrismaClientKnownRequestError(`No session ${sessionId} to update`, { code: "P2025", clientVersion: Prisma.prismaVersion.client });
  return info;
}

/** `changeSession` only when `condition` (SQL, `AND …`) holds too; undefined when nothing was changed. */
async function changeSessionIf(s: StoreServices, sessionId: string, set: Prisma.Sql, condition: Prisma.Sql): Promise<Info | undefined> {
  const [row] = await s.db.$queryRaw<SessionWithShareColumns[]>`
    WITH changed AS (UPDATE "Session" SET ${set} WHERE id = ${sessionId} ${condition} RETURNING *)
    SELECT changed.*, ${SHARE_COLUMNS} FROM changed LEFT JOIN "Share" sh ON sh."sessionId" = changed.id`;
  if (!row) return undefined;
  const info = sessionFromRow(withShare(row), s.settings.publicUrl);
  publishSession(s, info);
  return info;
}

/** Name the session `title` unless it was renamed from `from` meanwhile (a generated title never overwrites a rename). */
export function renameFrom(s: StoreServices, sessionId: string, from: string, title: string): Promise<Info | undefined> {
  return changeSessionIf(s, sessionId, Prisma.sql`title = ${title}`, Prisma.sql`AND title = ${from}`);
}

/** The session was used now (a prompt): its `timeUpdated`, which orders lists. */
export function touchSession(s: StoreServices, sessionId: string, time: number): Promise<Info> {
  return changeSession(s, sessionId, Prisma.sql`"timeUpdated" = ${new Date(time)}`);
}

/** Add a finished step's usage to the session's totals (kept on the row for the dashboard) and its cost to the month's spending. */
export async function addUsage(s: StoreServices, sessionId: string, step: Tokens, cost: number): Promise<Info> {
  const total = step.input + step.output + step.reasoning + step.cache.read + step.cache.write;
  const info = await changeSession(
    s,
    sessionId,
    Prisma.sql`cost = cost + ${cost}::numeric,
      "tokensInput" = "tokensInput" + ${step.input}::bigint,
      "tokensOutput" = "tokensOutput" + ${step.output}::bigint,
      "tokensReasoning" = "tokensReasoning" + ${step.reasoning}::bigint,
      "tokensCacheRead" = "tokensCacheRead" + ${step.cache.read}::bigint,
      "tokensCacheWrite" = "tokensCacheWrite" + ${step.cache.write}::bigint,
      "tokensTotal" = "tokensTotal" + ${total}::bigint,
      "timeUpdated" = ${new Date(s.clock.now())}`,
  );
  await Spending.record(s, info, cost);
  return info;
}

/** Store the session's summary (what its turns changed, from its first snapshot to its last). */
export async function setSummary(s: StoreServices, sessionId: string, diffs: FileDiff[]): Promise<Info> {
  const additions = diffs.reduce((sum, d) => sum + d.additions, 0);
  const deletions = diffs.reduce((sum, d) => sum + d.deletions, 0);
  return changeSession(
    s,
    sessionId,
    Prisma.sql`"summaryAdditions" = ${additions}::int, "summaryDeletions" = ${deletions}::int, "summaryFiles" = ${diffs.length}::int, "summaryDiffs" = ${JSON.stringify(diffs)}::jsonb`,
  );
}
