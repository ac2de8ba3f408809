import path from "node:path";
import { Bus } from "../../server/bus/bus";
import { type Bridge, bridge } from "../../server/bus/postgres";
import { type Db, createDb } from "../../server/db/client";
import { startEmbeddedDatabase } from "../../server/db/embedded";
import * as Id from "../../server/id";
import { ensureSampleProject } from "../../server/project/sample";
import { configServices } from "../../server/assemble";
import { loadConfig } from "../../server/config";
import { withActor } from "../../server/services";
import { type Context, Session } from "../../server/session";
import type { AssistantMessage, MessageError, Part, UserMessage } from "../../server/session/message";
import { userMessage } from "../../test/fixtures";
import { NO_TOKENS, assistantInfo } from "../../test/messages";

/** Same folders as the web server in playwright.config.ts. */
export const E2E_DATA_DIR = process.env.PARLEY_E2E_DATA_DIR ?? ".data-e2e";
export const E2E_PROJECT_DIR = path.resolve(E2E_DATA_DIR, "project");
/** The configuration file the e2e server reads (playwright.config.ts `PARLEY_CONFIG`). */
export const E2E_CONFIG = "e2e/parley.config.json";

/** Parts are written without their ids; the seeder gives each a fresh ascending one. */
export type PartInput = Part extends infer P ? (P extends Part ? Omit<P, "id" | "sessionId" | "messageId"> : never) : never;

/** The running e2e server's database: DATABASE_URL, or the embedded PostgreSQL it started in E2E_DATA_DIR (joined, never started here). */
export async function e2eDatabaseUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const embedded = await startEmbeddedDatabase({ dataDir: E2E_DATA_DIR });
  if (embedded.owned) {
    await embedded.stop();
    throw new Error(`no PostgreSQL is running in ${E2E_DATA_DIR}: is the e2e web server up?`);
  }
  return embedded.url;
}

/** A completed `read` of `filePath` (the tool's title) that gave `output`, as the seeders write it. */
export function completedRead(callId: string, filePath: string, output: string, time: { start: number; end: number; compacted?: number }): PartInput {
  return { type: "tool", callId, tool: "read", state: { status: "completed", input: { filePath }, output, title: filePath, metadata: {}, time } };
}

/**
 * The user's first team and its project in E2E_PROJECT_DIR: the first user of the server
 * got it with their team; a later user's own team gets it registered here.
 */
async function teamProject(db: Db, userId: string): Promise<{ actor: Context["actor"]; projectId: string }> {
  const membership = await db.membership.findFirst({ where: { userId }, orderBy: { createdAt: "asc" } });
  if (!membership) throw new Error(`user ${userId} is in no team`);
  const { teamId } = membership;
  ensureSampleProject(E2E_PROJECT_DIR);
  const project = await db.project.upsert({
    where: { teamId_directory: { teamId, directory: E2E_PROJECT_DIR } },
    create: { id: Id.ascending("project"), teamId, name: path.basename(E2E_PROJECT_DIR), directory: E2E_PROJECT_DIR },
    update: {},
  });
  return { actor: { userId, teamId }, projectId: project.id };
}

/**
 * Writes sessions, messages and parts straight through the session module, into the
 * database of the running e2e server (joining its embedded PostgreSQL). Its bus is
 * bridged over LISTEN/NOTIFY, so what it writes reaches the server's SSE clients live.
 */
export class Seeder {
  private constructor(
    readonly db: Db,
    readonly ctx: Context,
    readonly projectId: string,
    private readonly link: Bridge,
  ) {}

  /** Joins the e2e server's database and writes as `userId` (a signed-up user) in their first team. */
  static async open(userId: string): Promise<Seeder> {
    const url = await e2eDatabaseUrl();
    const db = createDb(url, { max: 2 });
    const workspace = await teamProject(db, userId);
    const bus = new Bus();
    // The server also sends its own internal events (e.g. the runner's), which this
    // process has no definitions for and does not need.
    const link = await bridge(bus, url, {
      log: (message, error) => {
        if (!String(error).includes("unknown event")) console.error(message, error);
      },
    });
    // The server's configuration file too (playwright.config.ts): the same limits, e.g. the
    // live-workspace cap, which the suite's hundreds of sessions in one project would pass.
    const services = await configServices(loadConfig({ PARLEY_CONFIG: E2E_CONFIG, ...process.env, DATABASE_URL: url, PARLEY_DATA_DIR: E2E_DATA_DIR }), db, bus);
    return new Seeder(db, withActor(services, workspace.actor), workspace.projectId, link);
  }

  async close(): Promise<void> {
    await this.link.flush();
    await this.link.close();
    await this.db.$disconnect();
  }

  /** Resolves once every event published so far has reached PostgreSQL (and so the server). */
  flush(): Promise<void> {
    return this.link.flush();
  }

  session(input: { title?: string; parentId?: string } = {}) {
    return Session.create(this.ctx, { projectId: this.projectId, ...input });
  }

  /**
   * Where a session's files are on disk: its workspace, `<data>/workspaces/<projectId>/<workspaceId>`
   * (made when a tool first needs files), or its project's folder for a session made before workspaces.
   */
  async directory(sessionId: string): Promise<string> {
    const row = await this.db.session.findUniqueOrThrow({ where: { id: sessionId }, select: { directory: true } });
    return path.resolve(row.directory);
  }

  async userMessage(sessionId: string, parts: PartInput[] = [], extra: Partial<UserMessage> = {}): Promise<UserMessage> {
    const info = userMessage(sessionId, { model: { providerId: "parley", modelId: "offline" }, ...extra });
    await Session.updateMessage(this.ctx, info);
    for (const part of parts) await this.part(info, part);
    return info;
  }

  async assistantMessage(
    sessionId: string,
    parentId: string,
    parts: PartInput[] = [],
    extra: { cost?: number; error?: MessageError; completed?: boolean; tokens?: AssistantMessage["tokens"] } = {},
  ): Promise<AssistantMessage> {
    const created = Date.now();
    const info = assistantInfo({
      id: Id.ascending("message"),
      sessionId,
      parentId,
      modelId: "offline-1",
      path: { cwd: E2E_PROJECT_DIR, root: E2E_PROJECT_DIR },
      cost: extra.cost ?? 0,
      tokens: extra.tokens ?? NO_TOKENS,
      error: extra.error,
      time: { created, completed: extra.completed === false ? undefined : created + 4200 },
    });
    await Session.updateMessage(this.ctx, info);
    for (const part of parts) await this.part(info, part);
    return info;
  }

  /** Write a part (a new one, or the part `id`); `delta` is the text appended since the last write, as when streaming. */
  async part(message: { id: string; sessionId: string }, input: PartInput, id = Id.ascending("part"), delta?: string): Promise<Part> {
    const part = { ...input, id, sessionId: message.sessionId, messageId: message.id } as Part;
    return Session.updatePart(this.ctx, part, delta);
  }

  /** A Part row whose JSON does not match its schema, as an old or broken writer might leave. */
  async corruptPart(message: { id: string; sessionId: string }): Promise<string> {
    const id = Id.ascending("part");
    await this.db.part.create({ data: { id, messageId: message.id, sessionId: message.sessionId, type: "tool", data: { callId: "broken" } } });
    return id;
  }
}
