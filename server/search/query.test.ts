import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PUNCTUATION, terms } from "./query";

const MIGRATION = path.resolve(import.meta.dirname, "../../prisma/migrations/20261128144807_part_search/migration.sql");

describe("query normalization", () => {
  it("turns into spaces exactly the punctuation the stored words' translate() does", () => {
    const sql = readFileSync(MIGRATION, "utf8");
    const sets = [...sql.matchAll(/'(![^\n]*?:)' \|\| chr\(59\) \|\| '([^\n]*?~)', '( +)'\)/g)];
    expect(sets.length).toBe(4);
    for (const [, before, after, spaces] of sets) {
      const set = `${before};${after}`.replace(/''/g, "'");
      expect(set).toBe(PUNCTUATION);
      expect(spaces?.length).toBe(PUNCTUATION.length);
    }
    // Every one of them splits a term; nothing else does.
    expect(terms(`a${PUNCTUATION}b`)).toEqual(["a b"]);
    expect(terms("naïve日本")).toEqual(["naïve日本"]);
  });
});
