import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OwnDatabase, ownDatabase } from "../../test/db";
import * as Id from "../id";
import { MIGRATIONS_DIR } from "./migrate";

/**
 * The migration that moves stored ids from the wrapping 12-hex time field to the 64-bit
 * one (SPEC §1). Rows are written in the legacy format, then the committed script runs
 * the way `npm run db:migrate` runs it (the driver adapter's executeScript); the test
 * run's own database already applied it through the schema engine at start.
 */

const MIGRATION = readFileSync(path.join(MIGRATIONS_DIR, "20261125080000_ids_64bit_time", "migration.sql"), "utf8");
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const NEW_FORMAT = /^(ses|msg|prt|per)_[0-9a-f]{16}[0-9A-Za-z]{14}$/;

/** An id as the 12-hex format made it: ms modulo 2^36, × 0x1000 + counter; sessions inverted. */
function legacyId(prefix: "ses" | "msg" | "prt" | "per", ms: number, counter = 0): string {
  let value = (ms % 2 ** 36) * 0x1000 + counter;
  if (prefix === "ses") value = 2 ** 48 - 1 - value;
  let random = "";
  for (let i = 0; i < 14; i++) random += BASE62[randomInt(62)];
  return `${prefix}_${value.toString(16).padStart(12, "0")}${random}`;
}

async function runMigration(url: string): Promise<void> {
  const adapter = await new PrismaPg({ connectionString: url }).connect();
  try {
    await adapter.executeScript(MIGRATION);
  } finally {
    await adapter.dispose();
  }
}

const JULY = Date.UTC(2026, 6, 20, 12, 0, 0, 123);
const NOVEMBER = Date.UTC(2026, 10, 24, 9, 30, 0, 456);
const at = (ms: number) => new Date(ms);

describe("migration 20261125080000_ids_64bit_time", () => {
  let database: OwnDatabase;
  let client: pg.Client;
  const old = {
    julySession: legacyId("ses", JULY),
    child: legacyId("ses", JULY + 60_000),
    novemberSession: legacyId("ses", NOVEMBER),
    julyUser: legacyId("msg", JULY + 1000),
    julyAssistant: legacyId("msg", JULY + 2000, 1),
    julyText: legacyId("prt", JULY + 1000, 1),
    julyTool: legacyId("prt", JULY + 2500),
    novemberUser: legacyId("msg", NOVEMBER + 1000),
    novemberText: legacyId("prt", NOVEMBER + 1000, 7),
    request: legacyId("per", JULY + 2600),
  };
  const toolOutputPath = `/data/tool-output/tem_x/${old.child}/tool_1.txt`;

  beforeAll(async () => {
    database = await ownDatabase("ids64");
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const teamId = Id.ascending("team");
    const userId = Id.ascending("user");
    const projectId = Id.ascending("project");
    await client.query(`INSERT INTO "Team" (id, name, slug) VALUES ($1, 'T', $1)`, [teamId]);
    await client.query(`INSERT INTO "User" (id, email, name) VALUES ($1, $1 || '@x', 'U')`, [userId]);
    await client.query(`INSERT INTO "Project" (id, "teamId", name, directory) VALUES ($1, $2, 'p', '/tmp/p')`, [projectId, teamId]);
    const session = (id: string, created: number, parentId: string | null, revert: unknown) =>
      client.query(
        `INSERT INTO "Session" (id, "teamId", "projectId", directory, "parentId", title, slug, version, "authorId", "timeCreated", "timeUpdated", revert)
         VALUES ($1, $2, $3, '/tmp/p', $4, 't', 's', '1', $5, $6, $6, $7)`,
        [id, teamId, projectId, parentId, userId, at(created), revert === null ? null : JSON.stringify(revert)],
      );
    await session(old.julySession, JULY, null, { messageId: old.julyAssistant, partId: old.julyTool });
    await session(old.child, JULY + 60_000, old.julySession, null);
    await session(old.novemberSession, NOVEMBER, null, null);
    const message = (id: string, sessionId: string, role: string, created: number, data: unknown) =>
      client.query(`INSERT INTO "Message" (id, "sessionId", role, data, "timeCreated") VALUES ($1, $2, $3, $4, $5)`, [
        id,
        sessionId,
        role,
        JSON.stringify(data),
        at(created),
      ]);
    await message(old.julyUser, old.julySession, "user", JULY + 1000, { agent: "build" });
    await message(old.julyAssistant, old.julySession, "assistant", JULY + 2000, { parentId: old.julyUser });
    await message(old.novemberUser, old.novemberSession, "user", NOVEMBER + 1000, { agent: "build" });
    const part = (id: string, messageId: string, sessionId: string, type: string, data: unknown) =>
      client.query(`INSERT INTO "Part" (id, "messageId", "sessionId", type, data) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        messageId,
        sessionId,
        type,
        JSON.stringify(data),
      ]);
    await part(old.julyText, old.julyUser, old.julySession, "text", { text: "hello" });
    await part(old.julyTool, old.julyAssistant, old.julySession, "tool", {
      callId: `subtask_${old.julyText}`,
      state: { status: "completed", metadata: { sessionId: old.child, outputPath: toolOutputPath } },
    });
    await part(old.novemberText, old.novemberUser, old.novemberSession, "text", { text: `see ${old.julyUser}.` });
    await client.query(
      `INSERT INTO "PermissionRequest" (id, "teamId", "sessionId", "projectId", agent, permission, patterns, always, metadata, tool, "createdAt")
       VALUES ($1, $2, $3, $4, 'build', 'bash', '[]', '[]', '{}', $5, $6)`,
      [old.request, teamId, old.julySession, projectId, JSON.stringify({ messageId: old.julyAssistant, callId: "call_1" }), at(JULY + 2600)],
    );
    await client.query(`INSERT INTO "Todo" ("sessionId", todos, "updatedAt") VALUES ($1, '[]', now())`, [old.julySession]);
    await runMigration(database.url);
  });

  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  /** The new id of a legacy one: same prefix and random characters, a new time field. */
  async function renamed(table: string, legacy: string): Promise<string> {
    const rows = await client.query<{ id: string }>(`SELECT id FROM "${table}" WHERE right(id, 14) = $1`, [legacy.slice(-14)]);
    expect(rows.rows).toHaveLength(1);
    return rows.rows[0]!.id;
  }

  it("rewrites every stored id into the 64-bit format, keeping its time, counter and random characters", async () => {
    for (const table of ["Session", "Message", "Part", "PermissionRequest"]) {
      const { rows } = await client.query<{ id: string }>(`SELECT id FROM "${table}"`);
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) expect(row.id).toMatch(NEW_FORMAT);
    }
    expect(Id.timestamp(await renamed("Session", old.julySession), true)).toBe(JULY);
    expect(Id.timestamp(await renamed("Session", old.novemberSession), true)).toBe(NOVEMBER);
    expect(Id.timestamp(await renamed("Message", old.julyAssistant))).toBe(JULY + 2000);
    expect(Id.timestamp(await renamed("Part", old.novemberText))).toBe(NOVEMBER + 1000);
    expect(Id.timestamp(await renamed("PermissionRequest", old.request))).toBe(JULY + 2600);
    // The counter survives: the two ids of one millisecond keep their order.
    const text = await renamed("Part", old.julyText);
    expect(text.slice(4, 20)).toBe(((JULY + 1000) * 0x1000 + 1).toString(16).padStart(16, "0"));
    // A link made before the migration finds the same row (Id.fromLegacy, used by the session page).
    expect(Id.fromLegacy(old.julySession, NOVEMBER)).toBe(await renamed("Session", old.julySession));
    expect(Id.fromLegacy(old.novemberSession, NOVEMBER)).toBe(await renamed("Session", old.novemberSession));
    expect(Id.fromLegacy(old.julyText, NOVEMBER)).toBe(text);
  });

  it("old and new ids sort by creation time, across the 2026-08-14 wrap", async () => {
    const julyMessage = await renamed("Message", old.julyUser);
    const novemberMessage = await renamed("Message", old.novemberUser);
    const fresh = Id.ascending("message");
    expect(julyMessage < novemberMessage).toBe(true);
    expect(novemberMessage < fresh).toBe(true);
    // Descending sessions: newest first.
    const julySession = await renamed("Session", old.julySession);
    const novemberSession = await renamed("Session", old.novemberSession);
    const freshSession = Id.descending("session");
    expect(freshSession < novemberSession).toBe(true);
    expect(novemberSession < julySession).toBe(true);
    // The database orders them the same way (as Prisma's orderBy id does).
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM "Message" ORDER BY id`);
    expect(rows.map((r) => r.id)).toEqual([julyMessage, await renamed("Message", old.julyAssistant), novemberMessage]);
  });

  it("rewrites every reference consistently: foreign keys, Part.sessionId and ids inside JSON", async () => {
    const julySession = await renamed("Session", old.julySession);
    const child = await renamed("Session", old.child);
    const julyUser = await renamed("Message", old.julyUser);
    const julyAssistant = await renamed("Message", old.julyAssistant);
    const julyTool = await renamed("Part", old.julyTool);
    const julyText = await renamed("Part", old.julyText);
    const childRow = await client.query<{ parentId: string }>(`SELECT "parentId" FROM "Session" WHERE id = $1`, [child]);
    expect(childRow.rows[0]!.parentId).toBe(julySession);
    const session = await client.query<{ revert: unknown }>(`SELECT revert FROM "Session" WHERE id = $1`, [julySession]);
    expect(session.rows[0]!.revert).toEqual({ messageId: julyAssistant, partId: julyTool });
    const messages = await client.query<{ id: string; sessionId: string; data: { parentId?: string } }>(`SELECT id, "sessionId", data FROM "Message"`);
    for (const row of messages.rows) expect(row.sessionId).toMatch(NEW_FORMAT);
    expect(messages.rows.find((r) => r.id === julyAssistant)?.data.parentId).toBe(julyUser);
    const parts = await client.query<{ id: string; messageId: string; sessionId: string; data: Record<string, unknown> }>(
      `SELECT p.id, p."messageId", p."sessionId", p.data FROM "Part" p JOIN "Message" m ON m.id = p."messageId" WHERE p."sessionId" = m."sessionId"`,
    );
    expect(parts.rows).toHaveLength(3);
    const tool = parts.rows.find((r) => r.id === julyTool)!;
    expect(tool.data).toEqual({
      callId: `subtask_${julyText}`,
      // A session id inside a file path stays: the folder on disk keeps its name.
      state: { status: "completed", metadata: { sessionId: child, outputPath: toolOutputPath } },
    });
    const request = await client.query<{ sessionId: string; tool: unknown }>(`SELECT "sessionId", tool FROM "PermissionRequest"`);
    expect(request.rows[0]).toEqual({ sessionId: julySession, tool: { messageId: julyAssistant, callId: "call_1" } });
    const todo = await client.query<{ sessionId: string }>(`SELECT "sessionId" FROM "Todo"`);
    expect(todo.rows[0]!.sessionId).toBe(julySession);
    const functions = await client.query(`SELECT 1 FROM pg_proc WHERE proname LIKE 'parley_id%'`);
    expect(functions.rowCount).toBe(0);
  });

  it("is idempotent: running it again changes nothing", async () => {
    const snapshot = async () =>
      (await client.query(`SELECT id, "sessionId", "messageId", data::text FROM "Part" ORDER BY id COLLATE "C"`)).rows;
    const before = await snapshot();
    await runMigration(database.url);
    expect(await snapshot()).toEqual(before);
  });
});
