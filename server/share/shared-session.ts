import { z } from "zod";
import { type Db, Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { Info } from "../session/info";
import { sessionFromRow, shareUrl } from "../session/rows";
import { type MessagePage, messagePage } from "../session/transcript";
import { parse } from "../fn";
import type { Services } from "../services";
import { type TurnDiff, turnDiff } from "../session/summary";
import { snapshotScope } from "../workspace/scope";
import { relativeText } from "./paths";
import { type RuleSource, type ViewerScope, forViewer, pageForViewer, readRules, visibleFile } from "./redaction";

/**
 * What the holder of a share link may read, without an account: the shared
 * session and its descendants (the child sessions its tools started), read-only. The
 * share id is the only credential: an unknown or revoked id is NOT_FOUND, and a session
 * outside the shared tree is NOT_FOUND too, so nothing else can be probed. Nothing here
 * writes. What is read is shown as redaction.ts says a viewer may see it.
 */

export interface Options {
  /** Base of share URLs; relative URLs when unset. */
  publicUrl?: string | undefined;
  /** The server's share mode: with "disabled" every link is unknown. */
  mode?: "auto" | "manual" | "disabled";
  /** The server's data directory (saved tool outputs live there): shown to viewers as a placeholder. */
  dataDir?: string | undefined;
  /** The folder every team's projects are registered under: shown to viewers as a placeholder. */
  projectsRoot?: string | undefined;
}

/** What reading a share link needs: the database, and the rules of the shared project. */
export interface ShareReader {
  db: Db;
  permissions: RuleSource;
}

/** Share ids are 22 base64url characters (server/session/share.ts); anything else is unknown. */
const SHARE_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const ShareId = z.string().min(1).max(64);

/** How deep a tree of child sessions is followed; far beyond what agents create. */
const MAX_DEPTH = 64;
/** Sessions of one shared tree that are considered at most. */
const MAX_SESSIONS = 10_000;

function unknownShare(): ParleyError {
  return new ParleyError("NOT_FOUND", "this share link does not exist or was revoked");
}

async function sharedRow(db: Db, shareId: string, options: Options) {
  if (options.mode === "disabled" || !SHARE_ID.test(shareId)) throw unknownShare();
  const found = await db.share.findUnique({ where: { id: shareId }, include: { session: true } });
  if (!found || found.revokedAt !== null) throw unknownShare();
  const { session, ...share } = found;
  return { ...session, share };
}

/** The shared session; NOT_FOUND when the id is unknown or revoked. */
export async function resolve(reader: ShareReader, shareId: string, options: Options = {}): Promise<Info> {
  return (await resolveScoped(reader, shareId, options)).root;
}

/** Where a session of the shared tree is kept: its project and directory (never shown to viewers). */
interface Kept {
  id: string;
  directory: string;
}

/** The shared session as a viewer sees it, and the scope its tree is shown in. */
export async function resolveScoped(reader: ShareReader, shareId: string, options: Options = {}): Promise<{ root: Info; scope: ViewerScope }> {
  const { root, scope } = await resolveKept(reader, shareId, options);
  return { root, scope };
}

async function resolveKept(reader: ShareReader, shareId: string, options: Options): Promise<{ root: Info; scope: ViewerScope; project: Kept }> {
  const row = await sharedRow(reader.db, shareId, options);
  const rules = await readRules(reader.permissions, row.teamId, row.projectId);
  const project = await reader.db.project.findUnique({ where: { id: row.projectId }, select: { directory: true } });
  const scope: ViewerScope = { teamId: row.teamId, directory: row.directory, project: project?.directory, dataDir: options.dataDir, projectsRoot: options.projectsRoot, rules };
  return { root: forViewer(sessionFromRow(row, options.publicUrl), scope), scope, project: snapshotScope(row) };
}

const IdRow = z.object({ id: Id.schema("session") });

/** The shared session and every descendant, by id (the root first). */
export async function descendants(db: Db, rootId: string): Promise<string[]> {
  const result = await db.$queryRaw(Prisma.sql`
    WITH RECURSIVE tree(id, depth) AS (
      SELECT s."id", 0 FROM "Session" s WHERE s."id" = ${rootId}
      UNION ALL
      SELECT s."id", tree.depth + 1 FROM "Session" s JOIN tree ON s."parentId" = tree.id WHERE tree.depth < ${MAX_DEPTH}
    )
    SELECT id FROM tree ORDER BY depth LIMIT ${MAX_SESSIONS}`);
  return z.array(IdRow).parse(result).map((row) => row.id);
}

/** Whether `sessionId` is `rootId` or one of its descendants (walked upwards from the session). */
export async function isPartOf(db: Db, rootId: string, sessionId: string): Promise<boolean> {
  if (sessionId === rootId) return true;
  const result = await db.$queryRaw(Prisma.sql`
    WITH RECURSIVE up(id, "parentId", depth) AS (
      SELECT s."id", s."parentId", 0 FROM "Session" s WHERE s."id" = ${sessionId}
      UNION ALL
      SELECT s."id", s."parentId", up.depth + 1 FROM "Session" s JOIN up ON s."id" = up."parentId" WHERE up.depth < ${MAX_DEPTH}
    )
    SELECT id FROM up WHERE id = ${rootId} LIMIT 1`);
  return z.array(IdRow).parse(result).length > 0;
}

/**
 * A session of the shared tree: the shared session when `sessionId` is omitted, else
 * that session if it is a descendant (NOT_FOUND otherwise).
 */
export async function session(reader: ShareReader, shareId: string, sessionId?: string, options: Options = {}): Promise<{ root: Info; session: Info }> {
  const { root, session: shown } = await scopedSession(reader, shareId, sessionId, options);
  return { root, session: shown };
}

/** A session of the shared tree (see `session`), with where it is kept (its project, its directory) and the scope it is shown in. */
async function scopedSession(
  reader: ShareReader,
  shareId: string,
  sessionId: string | undefined,
  options: Options,
): Promise<{ root: Info; session: Info; scope: ViewerScope; project: Kept }> {
  const { db } = reader;
  const resolved = await resolveKept(reader, shareId, options);
  const { root, scope } = resolved;
  if (sessionId === undefined || sessionId === root.id) return { ...resolved, session: root };
  Id.assert("session", sessionId);
  if (!(await isPartOf(db, root.id, sessionId))) throw ParleyError.notFound("session", sessionId);
  const row = await db.session.findUnique({ where: { id: sessionId }, include: { share: true } });
  if (!row) throw ParleyError.notFound("session", sessionId);
  // A child session works in its parent's project; its own directory is what its paths start with.
  const own = { ...scope, directory: row.directory };
  return { root, session: forViewer(sessionFromRow(row, options.publicUrl), own), scope: own, project: snapshotScope(row) };
}

export const MessagesInput = z.object({
  /** A descendant of the shared session; the shared session itself when omitted. */
  sessionId: Id.schema("session").optional(),
  /** Older than this message id (the previous page's cursor); the newest page when omitted. */
  before: Id.schema("message").optional(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type MessagesInput = z.input<typeof MessagesInput>;


/** A page of messages (oldest first) of the shared session or one of its descendants. */
export async function messages(reader: ShareReader, shareId: string, input: MessagesInput = {}, options: Options = {}): Promise<MessagePage> {
  const { sessionId, before, limit } = parse(MessagesInput, input);
  const { session: target, scope } = await scopedSession(reader, shareId, sessionId, options);
  return pageForViewer(await messagePage(reader.db, target.id, { before, limit }), scope);
}

async function childrenOf(db: Db, sessionId: string, scope: ViewerScope, options: Options): Promise<Info[]> {
  const rows = await db.session.findMany({ where: { parentId: sessionId }, include: { share: true }, orderBy: { id: "desc" } });
  return rows.map((row) => forViewer(sessionFromRow(row, options.publicUrl), { ...scope, directory: row.directory }));
}

/** The direct children of the shared session, or of one of its descendants. */
export async function children(reader: ShareReader, shareId: string, sessionId?: string, options: Options = {}): Promise<Info[]> {
  const { session: parent, scope } = await scopedSession(reader, shareId, sessionId, options);
  return childrenOf(reader.db, parent.id, scope, options);
}

export const PageInput = MessagesInput.extend({ shareId: ShareId });
export type PageInput = z.input<typeof PageInput>;

export interface Page {
  share: { id: string; url: string };
  /** The shared session. */
  root: Info;
  /** The session shown: the shared one or a descendant. */
  session: Info;
  messages: MessagePage;
  /** Direct children of the session shown. */
  children: Info[];
}

/**
 * Everything a share page renders on the server, in one call: the session shown, its
 * newest (or an older) page of messages with their parts, and its child sessions.
 */
export async function page(reader: ShareReader, input: PageInput, options: Options = {}): Promise<Page> {
  const { shareId, sessionId, before, limit } = parse(PageInput, input);
  const { root, session: shown, scope } = await scopedSession(reader, shareId, sessionId, options);
  const [page, kids] = await Promise.all([messagePage(reader.db, shown.id, { before, limit }), childrenOf(reader.db, shown.id, scope, options)]);
  return { share: { id: shareId, url: shareUrl(shareId, options.publicUrl) }, root, session: shown, messages: pageForViewer(page, scope), children: kids };
}

export const DiffInput = z.object({
  shareId: ShareId,
  /** A descendant of the shared session; the shared session itself when omitted. */
  sessionId: Id.schema("session").optional(),
  messageId: Id.schema("message"),
});
export type DiffInput = z.input<typeof DiffInput>;

/** What a user message's turn changed, as a viewer may see it: only the files the read rules show, paths relative. */
export async function diff(viewer: ShareReader & Pick<Services, "snapshots">, input: DiffInput, options: Options = {}): Promise<TurnDiff> {
  const { shareId, sessionId, messageId } = parse(DiffInput, input);
  const { session: shown, scope, project } = await scopedSession(viewer, shareId, sessionId, options);
  const turn = await turnDiff(viewer, project, shown.id, messageId, (file) => visibleFile(file, scope));
  return { ...turn, text: relativeText(turn.text, scope, shown.id) };
}
