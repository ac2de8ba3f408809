import { describe, expect, it } from "vitest";
import { databaseUrl, makeTeam, testDb } from "../../test/db";
import { createDb } from "../db/client";
import * as Id from "../id";
import { Session } from "../session";
import type { Part } from "../session/message";
import * as Store from "../session/store";

/**
 * A part's words (the `search` column of Part) come from `parley_part_search` (migration
 * 20261206154000_part_search_function): the same words as the expression written into the
 * column before (20261128144807_part_search, kept below as it was), so parts stored before
 * and after are found alike.
 */

/** The column's expression of 20261128144807_part_search, with `type` and `data` as parameters. */
const BEFORE = `
  CASE
    WHEN $1 = 'text'
      AND ($2::jsonb->'synthetic') IS DISTINCT FROM 'true'::jsonb
      AND ($2::jsonb->'time' IS NULL OR $2::jsonb->'time' ? 'end')
      THEN to_tsvector('simple'::regconfig, translate(left($2::jsonb->>'text', 100000), '!"#$%&''()*+,-./:' || chr(59) || '<=>?@[\\]^_\`{|}~', '                                '))
    WHEN $1 = 'tool' AND $2::jsonb->'state'->>'status' IN ('completed', 'error')
      THEN to_tsvector('simple'::regconfig, translate(left(
        coalesce($2::jsonb->'state'->>'title', '') || ' ' ||
        coalesce($2::jsonb->'state'->'input'->>'filePath', '') || ' ' ||
        coalesce($2::jsonb->'state'->'input'->>'path', '') || ' ' ||
        coalesce($2::jsonb->'state'->'input'->>'command', '') || ' ' ||
        coalesce($2::jsonb->'state'->>'output', $2::jsonb->'state'->>'error', ''), 100000), '!"#$%&''()*+,-./:' || chr(59) || '<=>?@[\\]^_\`{|}~', '                                '))
    WHEN $1 = 'file'
      THEN to_tsvector('simple'::regconfig, translate(
        coalesce($2::jsonb->>'filename', '') || ' ' || coalesce($2::jsonb->'source'->>'path', ''), '!"#$%&''()*+,-./:' || chr(59) || '<=>?@[\\]^_\`{|}~', '                                '))
    WHEN $1 = 'patch'
      THEN to_tsvector('simple'::regconfig, translate(left($2::jsonb->>'files', 100000), '!"#$%&''()*+,-./:' || chr(59) || '<=>?@[\\]^_\`{|}~', '                                '))
  END`;

const PUNCTUATED = `Fix src/a-b.ts; see "x.y"!#$%&'()*+,-./:;<=>?@[\\]^_\`{|}~ done`;

const PARTS: Array<[string, Record<string, unknown>]> = [
  ["text", { text: PUNCTUATED, time: { start: 1, end: 2 } }],
  ["text", { text: "still streaming words", time: { start: 1 } }],
  ["text", { text: "naïve café — «quote» ¿qué? C:\\dir\\file.txt ünïcödé_words [x](y) a--b", time: { start: 1, end: 2 } }],
  ["text", { text: "no time at all" }],
  ["text", { text: "a synthetic note", synthetic: true, time: { start: 1, end: 2 } }],
  ["reasoning", { text: "thinking words", time: { start: 1, end: 2 } }],
  ["tool", { tool: "bash", state: { status: "completed", title: "Run tests", input: { command: "npm test; echo ok" }, output: "1 passed" } }],
  ["tool", { tool: "read", state: { status: "error", input: { filePath: "/p/src/main.ts" }, error: "ENOENT: no such file" } }],
  ["tool", { tool: "edit", state: { status: "running", input: { path: "src/x.ts" } } }],
  ["tool", { tool: "grep", state: { status: "completed", input: { path: "lib" }, output: null } }],
  ["file", { filename: "notes_v2.md", source: { path: "docs/notes_v2.md" } }],
  ["file", {}],
  ["patch", { files: ["src/a.ts", "src/b-c.ts"] }],
  ["step-start", { snapshot: "abc" }],
];

describe("a part's words", () => {
  it("are those of the column's expression before, for every kind of part (streaming and synthetic ones have none)", async () => {
    const db = testDb();
    for (const [type, data] of PARTS) {
      const json = JSON.stringify({ type, ...data });
      const [row] = await db.$queryRawUnsafe<Array<{ before: string | null; now: string | null }>>(
        `SELECT (${BEFORE})::text AS before, parley_part_search($1, $2::jsonb)::text AS now`,
        type,
        json,
      );
      expect(row?.now, `${type} ${json}`).toBe(row?.before);
    }
    const [punctuated] = await db.$queryRawUnsafe<Array<{ now: string }>>(`SELECT parley_part_search('text', $1::jsonb)::text AS now`, JSON.stringify({ text: PUNCTUATED, time: { start: 1, end: 2 } }));
    expect(punctuated?.now).toBe("'a':3 'b':4 'done':9 'fix':1 'see':6 'src':2 'ts':5 'x':7 'y':8");
  });

  it("are what the Part table's search column stores", async () => {
    const [column] = await testDb().$queryRawUnsafe<Array<{ expression: string }>>(
      `SELECT pg_get_expr(d.adbin, d.adrelid) AS expression FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
       WHERE d.adrelid = '"Part"'::regclass AND a.attname = 'search'`,
    );
    expect(column?.expression).toBe("parley_part_search(type, data)");
  });
});

describe("the index of parts' words", () => {
  it("holds only parts with words, and serves a search (`search @@ …`)", async () => {
    const db = testDb();
    const [index] = await db.$queryRawUnsafe<Array<{ definition: string }>>(`SELECT pg_get_indexdef('"Part_search_idx"'::regclass) AS definition`);
    expect(index?.definition).toContain("WHERE (search IS NOT NULL)");
    const plan = await db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
      return tx.$queryRawUnsafe<Array<{ "QUERY PLAN": string }>>(`EXPLAIN SELECT 1 FROM "Part" p WHERE p."search" @@ to_tsquery('simple', 'needle')`);
    });
    expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain("Part_search_idx");
  });
});

describe("a turn's end of a part", () => {
  it("computes the part's words once (an upsert would compute them for the insert it gives up, then for the update)", async () => {
    const { ctx, projectId } = await makeTeam();
    const session = await Session.create(ctx, { projectId });
    const messageId = Id.ascending("message");
    await testDb().message.create({ data: { id: messageId, sessionId: session.id, role: "assistant", data: {}, timeCreated: new Date() } });
    // One connection, counting the calls of PL/pgSQL functions.
    const db = createDb(databaseUrl(), { max: 1 });
    try {
      await db.$executeRawUnsafe("SET track_functions = 'pl'");
      const calls = async () => {
        await db.$executeRawUnsafe("SELECT pg_stat_force_next_flush()");
        const [row] = await db.$queryRawUnsafe<Array<{ calls: bigint | number }>>("SELECT pg_stat_get_function_calls('parley_part_search'::regproc) AS calls");
        return Number(row?.calls ?? 0);
      };
      const streaming: Part = { id: Id.ascending("part"), sessionId: session.id, messageId, type: "text", text: "words so far", time: { start: 1 } };
      await Store.persistParts(db, [streaming]);
      const before = await calls();
      const ended: Part = { ...streaming, text: "words so far and the end", time: { start: 1, end: 2 } };
      await Store.persistParts(db, [ended], true);
      expect((await calls()) - before).toBe(1);
      const [stored] = await db.$queryRawUnsafe<Array<{ words: string }>>(`SELECT search::text AS words FROM "Part" WHERE id = $1`, ended.id);
      expect(stored?.words).toBe("'and':4 'end':6 'far':3 'so':2 'the':5 'words':1");
      // A new part is inserted by the same statement (words computed once as well).
      const fresh: Part = { id: Id.ascending("part"), sessionId: session.id, messageId, type: "text", text: "brand new", time: { start: 1, end: 2 } };
      const beforeFresh = await calls();
      await Store.persistParts(db, [fresh, { ...ended, text: "changed again" }], true);
      expect((await calls()) - beforeFresh).toBe(2);
      const rows = await db.$queryRawUnsafe<Array<{ id: string; words: string }>>(`SELECT id, search::text AS words FROM "Part" WHERE "messageId" = $1 ORDER BY id`, messageId);
      expect(rows.map((r) => r.words)).toEqual(["'again':2 'changed':1", "'brand':1 'new':2"]);
    } finally {
      await db.$disconnect();
    }
  });
});
