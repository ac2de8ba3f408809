import path from "node:path";
import { z } from "zod";
import { type Db, Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import { DEFAULTS, evaluate } from "../permission/evaluate";
import type { Info } from "../session/info";
import type { Message, MessageError, Part } from "../session/message";
import { outputDirectory } from "../tool/truncate";
import { sessionFromRow, shareUrl } from "../session/rows";
import { type MessagePage, messagePage } from "../session/storage";
import { parse } from "../fn";
import type { Services } from "../services";
import { type TurnDiff, turnDiff } from "../session/summary";

/**
 * What the holder of a share link may read, without an account: the shared
 * session and its descendants (the child sessions its tools started), read-only. The
 * share id is the only credential: an unknown or revoked id is NOT_FOUND, and a session
 * outside the shared tree is NOT_FOUND too, so nothing else can be probed. Nothing here
 * writes.
 */

export interface Options {
  /** Base of share URLs; relative URLs when unset. */
  publicUrl?: string;
  /** The server's share mode: with "disabled" every link is unknown. */
  mode?: "auto" | "manual" | "disabled";
  /** The server's data directory (saved tool outputs live there): shown to viewers as a placeholder. */
  dataDir?: string;
}

/**
 * Where the server keeps a shared tree's files, for rewriting them out of what viewers
 * read: the project directory becomes project-relative paths, the data directory a
 * placeholder.
 */
export interface ViewerScope {
  teamId: string;
  /** The project directory of the shared session (a child session works in its parent's project). */
  directory: string;
  dataDir?: string | undefined;
}

/** What a viewer is told instead of an error nobody expected (it may quote SQL, stack frames or paths). */
export const UNEXPECTED_ERROR = "The server ran into an unexpected error.";

/**
 * A session as an anonymous viewer sees it: the server directory and the session's
 * permission rules are the team's business, not the link holder's.
 */
export function forViewer(info: Info): Info {
  const { permission: _rules, revert, ...rest } = info;
  // A revert's diff may show what was written into secret files: viewers get where it stands, not the diff.
  const shownRevert = revert ? { messageId: revert.messageId, ...(revert.partId ? { partId: revert.partId } : {}) } : undefined;
  return { ...rest, directory: "", ...(shownRevert ? { revert: shownRevert } : {}) };
}

/**
 * A part as an anonymous viewer sees it: an edit of a file the rules would not let the
 * agent read freely (its tool result says `diffHidden`, e.g. a `.env`) keeps its path and
 * outcome but not the content the model wrote into it.
 */
export function partForViewer(part: Part, scope?: ViewerScope): Part {
  if (part.type !== "tool") return part;
  const hidden = withoutSecrets(part);
  return scope ? relativeTool(hidden, scope) : hidden;
}

function withoutSecrets(part: ToolPart): ToolPart {
  if (part.tool !== "write" && part.tool !== "edit") return part;
  const state = part.state;
  const hidden = (state.status === "completed" && state.metadata.diffHidden === true) || sensitivePath(state.input.filePath);
  if (!hidden) return part;
  const { content: _content, oldString: _old, newString: _new, ...input } = state.input;
  const redacted = { ...input, contentHidden: true };
  if (state.status === "pending") return { ...part, state: { ...state, input: redacted, raw: "" } };
  if (state.status === "running" || state.status === "error") return { ...part, state: { ...state, input: redacted } };
  const { diff: _diff, ...metadata } = state.metadata;
  return { ...part, state: { ...state, input: redacted, metadata } };
}

/** A file a viewer may see the changes of: one the built-in rules let the agent read freely (not a `.env`). */
export function visibleFile(file: string): boolean {
  return evaluate("read", file, DEFAULTS).action === "allow";
}

/** A path the built-in rules would not let the agent read freely (`.env` files), while its edit is still under way. */
function sensitivePath(filePath: unknown): boolean {
  return typeof filePath === "string" && evaluate("read", filePath, DEFAULTS).action !== "allow";
}

type ToolPart = Extract<Part, { type: "tool" }>;

/** `text` with the server's directories taken out: project paths made relative, saved outputs and the data directory named. */
export function relativeText(text: string, scope: ViewerScope, sessionId: string): string {
  // [directory, what it becomes, what a path inside it starts with instead]
  const swaps: [string, string, string][] = [];
  if (scope.directory.length > 1) swaps.push([scope.directory, ".", ""]);
  if (scope.dataDir && scope.dataDir.length > 1) {
    swaps.push([outputDirectory(scope.dataDir, scope.teamId, sessionId), "tool-output", "tool-output/"], [scope.dataDir, "<data directory>", "<data directory>/"]);
  }
  // The most specific first: the project may lie inside the data directory (its default place).
  swaps.sort((x, y) => y[0].length - x[0].length);
  return swaps.reduce((out, [from, self, inside]) => replacePath(out, from, self, inside), text);
}

const NAME_CHAR = /[\w.-]/;

/**
 * Every `dir` in `text` that is a whole path (not the start of a longer name) replaced:
 * `dir/name…` by `inside` + `name…`, `dir` itself (or `dir/` before a space, a quote, the end) by `self`.
 */
function replacePath(text: string, dir: string, self: string, inside: string): string {
  let at = text.indexOf(dir);
  if (at < 0) return text;
  let out = "";
  let done = 0;
  while (at >= 0) {
    const end = at + dir.length;
    const next = text[end];
    if (next === undefined || !NAME_CHAR.test(next)) {
      const child = next === path.sep && NAME_CHAR.test(text[end + 1] ?? "");
      out += text.slice(done, at) + (child ? inside : self);
      done = child ? end + 1 : end;
      at = text.indexOf(dir, done);
    } else {
      at = text.indexOf(dir, at + 1);
    }
  }
  return out + text.slice(done);
}

function relativeValue(value: unknown, rewrite: (text: string) => string): unknown {
  if (typeof value === "string") return rewrite(value);
  if (Array.isArray(value)) return value.map((item) => relativeValue(item, rewrite));
  if (typeof value === "object" && value !== null) return relativeRecord(value as Record<string, unknown>, rewrite);
  return value;
}

function relativeRecord(record: Record<string, unknown>, rewrite: (text: string) => string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, relativeValue(value, rewrite)]));
}

/** A tool part whose input, output, title, metadata and error name files relative to the project. */
function relativeTool(part: ToolPart, scope: ViewerScope): ToolPart {
  const rewrite = (text: string) => relativeText(text, scope, part.sessionId);
  const state = part.state;
  const input = relativeRecord(state.input, rewrite);
  switch (state.status) {
    case "pending":
      return { ...part, state: { ...state, input, raw: rewrite(state.raw) } };
    case "running":
      return {
        ...part,
        state: {
          ...state,
          input,
          ...(state.title !== undefined ? { title: rewrite(state.title) } : {}),
          ...(state.metadata ? { metadata: relativeRecord(state.metadata, rewrite) } : {}),
        },
      };
    case "completed":
      return { ...part, state: { ...state, input, output: rewrite(state.output), title: rewrite(state.title), metadata: relativeRecord(state.metadata, rewrite) } };
    case "error":
      return {
        ...part,
        state: { ...state, input, error: rewrite(state.error), ...(state.metadata ? { metadata: relativeRecord(state.metadata, rewrite) } : {}) },
      };
  }
}

/** An error as a viewer sees it: what the server did not expect becomes a generic sentence; provider headers and bodies stay on the server. */
export function errorForViewer(error: MessageError): MessageError {
  switch (error.name) {
    case "UnknownError":
      return { name: "UnknownError", message: UNEXPECTED_ERROR };
    case "APIError": {
      const { responseHeaders: _headers, responseBody: _body, ...rest } = error;
      return rest;
    }
    case "ContextOverflowError": {
      const { responseBody: _body, ...rest } = error;
      return rest;
    }
    default:
      return error;
  }
}

const EMAIL = /^\s*([^\s@]+)@[^\s@]+\.[^\s@]+\s*$/;

/** A member's name as a viewer sees it: a name that is an email address shows only what comes before the @. */
export function nameForViewer(name: string): string {
  return EMAIL.exec(name)?.[1] ?? name;
}

/**
 * A message as a viewer sees it: its author by name only (never an email address), the
 * directory it ran in relative to the project, unexpected errors generic.
 */
export function messageForViewer(info: Message): Message {
  if (info.role !== "assistant") return info.author ? { ...info, author: { ...info.author, name: nameForViewer(info.author.name) } } : info;
  const cwd = path.relative(info.path.root, info.path.cwd);
  const shown = { ...info, path: { cwd: cwd === "" || path.isAbsolute(cwd) || cwd.startsWith("..") ? "." : cwd, root: "." } };
  return info.error ? { ...shown, error: errorForViewer(info.error) } : shown;
}

function pageForViewer(page: MessagePage, scope: ViewerScope): MessagePage {
  return {
    ...page,
    messages: page.messages.map((m) => ({ ...m, info: messageForViewer(m.info), parts: m.parts.map((p) => partForViewer(p, scope)) })),
    corrupt: page.corrupt.map((row) => ({ ...row, error: "this row could not be read" })),
  };
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
export async function resolve(db: Db, shareId: string, options: Options = {}): Promise<Info> {
  return (await resolveScoped(db, shareId, options)).root;
}

/** The shared session as a viewer sees it, and the scope its tree's parts are rewritten in. */
export async function resolveScoped(db: Db, shareId: string, options: Options = {}): Promise<{ root: Info; scope: ViewerScope }> {
  const row = await sharedRow(db, shareId, options);
  return { root: forViewer(sessionFromRow(row, options.publicUrl)), scope: { teamId: row.teamId, directory: row.directory, dataDir: options.dataDir } };
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
export async function session(db: Db, shareId: string, sessionId?: string, options: Options = {}): Promise<{ root: Info; session: Info }> {
  const { root, session: shown } = await scopedSession(db, shareId, sessionId, options);
  return { root, session: shown };
}

async function scopedSession(db: Db, shareId: string, sessionId: string | undefined, options: Options): Promise<{ root: Info; session: Info; scope: ViewerScope }> {
  const { root, scope } = await resolveScoped(db, shareId, options);
  if (sessionId === undefined || sessionId === root.id) return { root, session: root, scope };
  Id.assert("session", sessionId);
  if (!(await isPartOf(db, root.id, sessionId))) throw ParleyError.notFound("session", sessionId);
  const row = await db.session.findUnique({ where: { id: sessionId }, include: { share: true } });
  if (!row) throw ParleyError.notFound("session", sessionId);
  return { root, session: forViewer(sessionFromRow(row, options.publicUrl)), scope: { ...scope, directory: row.directory } };
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
export async function messages(db: Db, shareId: string, input: MessagesInput = {}, options: Options = {}): Promise<MessagePage> {
  const { sessionId, before, limit } = parse(MessagesInput, input);
  const { session: target, scope } = await scopedSession(db, shareId, sessionId, options);
  return pageForViewer(await messagePage(db, target.id, { before, limit }), scope);
}

async function childrenOf(db: Db, sessionId: string, options: Options): Promise<Info[]> {
  const rows = await db.session.findMany({ where: { parentId: sessionId }, include: { share: true }, orderBy: { id: "desc" } });
  return rows.map((row) => forViewer(sessionFromRow(row, options.publicUrl)));
}

/** The direct children of the shared session, or of one of its descendants. */
export async function children(db: Db, shareId: string, sessionId?: string, options: Options = {}): Promise<Info[]> {
  const { session: parent } = await session(db, shareId, sessionId, options);
  return childrenOf(db, parent.id, options);
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
export async function page(db: Db, input: PageInput, options: Options = {}): Promise<Page> {
  const { shareId, sessionId, before, limit } = parse(PageInput, input);
  const { root, session: shown, scope } = await scopedSession(db, shareId, sessionId, options);
  const [page, kids] = await Promise.all([messagePage(db, shown.id, { before, limit }), childrenOf(db, shown.id, options)]);
  return { share: { id: shareId, url: shareUrl(shareId, options.publicUrl) }, root, session: shown, messages: pageForViewer(page, scope), children: kids };
}

export const DiffInput = z.object({
  shareId: ShareId,
  /** A descendant of the shared session; the shared session itself when omitted. */
  sessionId: Id.schema("session").optional(),
  messageId: Id.schema("message"),
});
export type DiffInput = z.input<typeof DiffInput>;

/** What a user message's turn changed, as a viewer may see it (secret files left out). */
export async function diff(viewer: Pick<Services, "db" | "snapshots">, input: DiffInput, options: Options = {}): Promise<TurnDiff> {
  const { shareId, sessionId, messageId } = parse(DiffInput, input);
  const { session: shown } = await session(viewer.db, shareId, sessionId, options);
  const row = await viewer.db.session.findUniqueOrThrow({ where: { id: shown.id }, select: { projectId: true, directory: true } });
  return turnDiff(viewer, { id: row.projectId, directory: row.directory }, shown.id, messageId, visibleFile);
}
