import { describe, expect, it } from "vitest";
import { testDb } from "../../test/db";

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
