import type { z } from "zod";
import { ParleyError } from "../errors";
import type { Message as MessageRow, Part as PartRow, Session as SessionRow, Share as ShareRow } from "../db/generated/client";
import { Prisma } from "../db/generated/client";
import { type Authors, authorOf } from "./authors";
import { Info, Status } from "./info";
import { Message, Part } from "./message";

/**
 * Database rows ⇄ domain objects. Every row read is parsed; a row that does not match
 * its schema raises CORRUPT naming the table and id, so one bad row is reported
 * precisely instead of crashing whatever read it.
 */

/** What a session's row tells of it as a subagent's caller: where its calls run, for whom (the rest is the turn's). */
export function callerPlace(row: SessionRow): { teamId: string; sessionId: string; projectId: string; directory: string; workspaceId: string | null; authorId: string } {
  return {
    teamId: row.teamId,
    sessionId: row.id,
    projectId: row.projectId,
    directory: row.directory,
    workspaceId: row.workspaceId,
    authorId: row.authorId,
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}

export function corrupt(table: string, id: string, reason: string): ParleyError {
  return new ParleyError("CORRUPT", `${table} row ${id} is corrupt: ${reason}`, { details: { table, id } });
}

export function shareUrl(shareId: string, publicUrl?: string): string {
  const path = `/share/${shareId}`;
  return publicUrl ? new URL(path, publicUrl).toString() : path;
}

/** The stored run status; anything unreadable reads as idle rather than failing the row. */
function statusOf(row: SessionRow): Status {
  const parsed = Status.safeParse(row.status === "retry" ? row.statusData : { type: row.status });
  return parsed.success ? parsed.data : { type: "idle" };
}

export function sessionFromRow(row: SessionRow & { share?: ShareRow | null }, publicUrl?: string): Info {
  const candidate = {
    id: row.id,
    teamId: row.teamId,
    projectId: row.projectId,
    directory: row.directory,
    workspaceId: row.workspaceId ?? undefined,
    parentId: row.parentId ?? undefined,
    title: row.title,
    slug: row.slug,
    version: row.version,
    authorId: row.authorId,
    agent: row.agent ?? undefined,
    model: row.modelProviderId && row.modelId ? { providerId: row.modelProviderId, modelId: row.modelId } : undefined,
    summary:
      row.summaryAdditions !== null && row.summaryDeletions !== null && row.summaryFiles !== null
        ? {
            additions: row.summaryAdditions,
            deletions: row.summaryDeletions,
            files: row.summaryFiles,
            diffs: row.summaryDiffs ?? undefined,
          }
        : undefined,
    share: row.share && row.share.revokedAt === null ? { id: row.share.id, url: shareUrl(row.share.id, publicUrl) } : undefined,
    cost: row.cost.toNumber(),
    tokens: {
      input: Number(row.tokensInput),
      output: Number(row.tokensOutput),
      reasoning: Number(row.tokensReasoning),
      cache: { read: Number(row.tokensCacheRead), write: Number(row.tokensCacheWrite) },
    },
    time: {
      created: row.timeCreated.getTime(),
      updated: row.timeUpdated.getTime(),
      compacting: row.timeCompacting?.getTime(),
      archived: row.timeArchived?.getTime(),
    },
    permission: row.permission ?? undefined,
    revert: row.revert ?? undefined,
    status: statusOf(row),
  };
  const parsed = Info.safeParse(candidate);
  if (!parsed.success) throw corrupt("Session", row.id, describeIssues(parsed.error));
  return parsed.data;
}

/** JSON for a nullable Json column: undefined/null become SQL NULL. */
export function json(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === undefined || value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);
}

/**
 * A message from its row. A user message gets its author from `authors` (read for the
 * rows of a page: server/session/authors.ts); without them it has none.
 */
export function messageFromRow(row: MessageRow, authors?: Authors): Message {
  const data = row.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw corrupt("Message", row.id, "data is not an object");
  }
  // The author is the row's column, never something the JSON claims.
  const { author: _claimed, ...stored } = data as Record<string, unknown>;
  const author = row.role === "user" && authors ? authorOf(row.authorId, authors) : undefined;
  const parsed = Message.safeParse({ ...stored, id: row.id, sessionId: row.sessionId, role: row.role, ...(author ? { author } : {}) });
  if (!parsed.success) throw corrupt("Message", row.id, describeIssues(parsed.error));
  return parsed.data;
}

export function partFromRow(row: PartRow): Part {
  const data = row.data;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw corrupt("Part", row.id, "data is not an object");
  }
  const parsed = Part.safeParse({
    ...data,
    id: row.id,
    sessionId: row.sessionId,
    messageId: row.messageId,
    type: row.type,
  });
  if (!parsed.success) throw corrupt("Part", row.id, describeIssues(parsed.error));
  return parsed.data;
}

/** The JSON stored in a Message/Part row: everything but the columns. */
export function messageData(message: Message): Prisma.InputJsonValue {
  // A user message's author is the row's column (messageAuthorId), not part of its JSON.
  const { id: _id, sessionId: _sessionId, role: _role, author: _author, ...data } = message as Message & { author?: unknown };
  return data as Prisma.InputJsonValue;
}

/** The author column of a message row: who wrote a user message (none for the model's). */
export function messageAuthorId(message: Message): string | null {
  return message.role === "user" ? (message.author?.id ?? null) : null;
}

export function partData(part: Part): Prisma.InputJsonValue {
  const { id: _id, sessionId: _sessionId, messageId: _messageId, type: _type, ...data } = part;
  return data as Prisma.InputJsonValue;
}

/** A session row read with its share link's columns beside it (one statement instead of Prisma's two). */
export type SessionWithShareColumns = SessionRow & { shareId: string | null; shareTeamId: string | null; shareCreatedAt: Date | null; shareRevokedAt: Date | null };

/** The share columns to select beside a session's (`sh` the share, joined on the session). */
export const SHARE_COLUMNS = Prisma.sql`sh.id AS "shareId", sh."teamId" AS "shareTeamId", sh."createdAt" AS "shareCreatedAt", sh."revokedAt" AS "shareRevokedAt"`;

/** The row as Prisma's `include: { share: true }` gives it. */
export function withShare(row: SessionWithShareColumns): SessionRow & { share: ShareRow | null } {
  const { shareId, shareTeamId, shareCreatedAt, shareRevokedAt, ...session } = row;
  const share = shareId && shareTeamId && shareCreatedAt ? { id: shareId, sessionId: session.id, teamId: shareTeamId, createdAt: shareCreatedAt, revokedAt: shareRevokedAt } : null;
  return { ...session, share };
}
