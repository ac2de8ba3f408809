-- The words of a part (server/search) computed by a PL/pgSQL function instead of an
-- expression written into the column: PostgreSQL prepares a generated column's expression
-- for every statement that writes the table, and that expression (four to_tsvector and
-- translate calls) made each write of parts (a running turn's streamed text, every 200 ms)
-- cost about 0.3 ms more in the database. A PL/pgSQL function is prepared once per
-- connection. Punctuation becomes spaces through one regular expression rather than
-- translate(), which compares each character with each of the 32 (about twice the time on
-- a long answer). Its result is the same as before (20261128144807_part_search): the words of
-- a part once it is final, NULL while it streams. The column is made again (every part's
-- words computed once), with its index — now only of the parts that have words: a part
-- still streaming (NULL) is written many times and never searched (`search @@ …` is
-- never true of NULL, so the planner uses the index for every search as before).
CREATE OR REPLACE FUNCTION parley_part_search(part_type text, part_data jsonb) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  -- ASCII punctuation (each character named: a range would depend on the collation).
  punctuation constant text := '[!"#$%&''()*+,\-./:;<=>?@\[\\\]^_`{|}~]';
BEGIN
  IF part_type = 'text' THEN
    IF (part_data->'synthetic') IS DISTINCT FROM 'true'::jsonb AND (part_data->'time' IS NULL OR part_data->'time' ? 'end') THEN
      RETURN to_tsvector('simple'::regconfig, regexp_replace(left(part_data->>'text', 100000), punctuation, ' ', 'g'));
    END IF;
  ELSIF part_type = 'tool' THEN
    IF part_data->'state'->>'status' IN ('completed', 'error') THEN
      RETURN to_tsvector('simple'::regconfig, regexp_replace(left(
        coalesce(part_data->'state'->>'title', '') || ' ' ||
        coalesce(part_data->'state'->'input'->>'filePath', '') || ' ' ||
        coalesce(part_data->'state'->'input'->>'path', '') || ' ' ||
        coalesce(part_data->'state'->'input'->>'command', '') || ' ' ||
        coalesce(part_data->'state'->>'output', part_data->'state'->>'error', ''), 100000), punctuation, ' ', 'g'));
    END IF;
  ELSIF part_type = 'file' THEN
    RETURN to_tsvector('simple'::regconfig, regexp_replace(
      coalesce(part_data->>'filename', '') || ' ' || coalesce(part_data->'source'->>'path', ''), punctuation, ' ', 'g'));
  ELSIF part_type = 'patch' THEN
    RETURN to_tsvector('simple'::regconfig, regexp_replace(left(part_data->>'files', 100000), punctuation, ' ', 'g'));
  END IF;
  RETURN NULL;
END
$fn$;

ALTER TABLE "Part" DROP COLUMN "search";

ALTER TABLE "Part" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (parley_part_search(type, data)) STORED;

-- CreateIndex
CREATE INDEX "Part_search_idx" ON "Part" USING GIN ("search") WHERE "search" IS NOT NULL;
