-- Full-text search over parts (server/search). A stored generated column, written by
-- hand (Prisma cannot express one, the schema declares it as Unsupported("tsvector")):
-- the words of a part once it is final. A text part streaming (time.start without
-- time.end) and a tool still pending or running are NULL, so the UPDATE of a streamed delta
-- evaluates a CASE and nothing else, and the words are computed once, by the write that ends
-- the part. ASCII punctuation becomes spaces first, so a path or an identifier is
-- searchable by each of its words (the parser would otherwise keep "src/a-b.ts" as one
-- token), and a query is normalized the same way (server/search/query.ts). Text is capped
-- at 100,000 characters (a tsvector holds at most 1 MB). The simple configuration:
-- no stemming and no stop words, so code, paths and any language are matched as written.
-- The semicolon of the punctuation is chr(59): the migration runner splits scripts at
-- every semicolon, even inside a string literal.
ALTER TABLE "Part" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
  CASE
    WHEN type = 'text'
      AND (data->'synthetic') IS DISTINCT FROM 'true'::jsonb
      AND (data->'time' IS NULL OR data->'time' ? 'end')
      THEN to_tsvector('simple'::regconfig, translate(left(data->>'text', 100000), '!"#$%&''()*+,-./:' || chr(59) || '<=>?@[\]^_`{|}~', '                                '))
    WHEN type = 'tool' AND data->'state'->>'status' IN ('completed', 'error')
      THEN to_tsvector('simple'::regconfig, translate(left(
        coalesce(data->'state'->>'title', '') || ' ' ||
        coalesce(data->'state'->'input'->>'filePath', '') || ' ' ||
        coalesce(data->'state'->'input'->>'path', '') || ' ' ||
        coalesce(data->'state'->'input'->>'command', '') || ' ' ||
        coalesce(data->'state'->>'output', data->'state'->>'error', ''), 100000), '!"#$%&''()*+,-./:' || chr(59) || '<=>?@[\]^_`{|}~', '                                '))
    WHEN type = 'file'
      THEN to_tsvector('simple'::regconfig, translate(
        coalesce(data->>'filename', '') || ' ' || coalesce(data->'source'->>'path', ''), '!"#$%&''()*+,-./:' || chr(59) || '<=>?@[\]^_`{|}~', '                                '))
    WHEN type = 'patch'
      THEN to_tsvector('simple'::regconfig, translate(left(data->>'files', 100000), '!"#$%&''()*+,-./:' || chr(59) || '<=>?@[\]^_`{|}~', '                                '))
  END
) STORED;

-- CreateIndex
CREATE INDEX "Part_search_idx" ON "Part" USING GIN ("search");
