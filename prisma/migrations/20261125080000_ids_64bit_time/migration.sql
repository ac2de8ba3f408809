-- Ids with a time field that does not wrap (SPEC §1).
--
-- Until now the body of an id began with 12 hex characters of time (ms × 0x1000 +
-- counter), which wrap every 2^36 ms (about 795 days, the last wrap was 2026-08-14), so
-- an id made after the wrap sorted before one made in July. New ids carry 16 hex
-- characters (52 bits of milliseconds). Every stored id of a kind whose order is read,
-- sessions (descending), messages, parts and permission requests, is rewritten here
-- into the new format, keeping its millisecond, counter and random characters, so old
-- and new ids sort by creation time together. The millisecond is recovered from the 36
-- bits the old field kept: the value nearest (within 397 days) to the row's own
-- creation time, or for a part its message's.
--
-- Foreign keys follow by ON UPDATE CASCADE. "Part"."sessionId" (no foreign key) and ids
-- inside JSON columns (an assistant's parentId, a revert's messageId and partId, tool
-- metadata, a permission request's tool) go through the same function. An id inside
-- JSON right after a "/" or "\" is part of a file path (saved tool output lives in a
-- folder named by the session id) and is left as it is.
--
-- Written for both runners: `prisma migrate deploy` sends the script at once, while the
-- driver adapter behind `npm run db:migrate` cuts it at every semicolon, so no
-- statement, comment or string here holds one except at its end. BEGIN and COMMIT make
-- the rewrite one transaction, and every statement leaves ids already in the new format
-- unchanged, so a rerun after a failure finishes the work.

BEGIN;

CREATE OR REPLACE FUNCTION "parley_id_64bit"(old TEXT, reference TIMESTAMPTZ) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN NOT t.legacy THEN old
    ELSE left(old, 4)
      || lpad(to_hex(CASE WHEN t.descending THEN (~ t.v) ELSE t.v END), 16, '0')
      || substr(old, 17)
  END
  FROM (
    SELECT l.legacy, l.descending,
      -- the millisecond nearest the reference among low + k × 2^36, then the counter
      (l.low + ((l.ref - l.low + 34359738368) / 68719476736) * 68719476736) * 4096 + (l.value & 4095) AS v
    FROM (
      SELECT r.legacy, r.descending, r.value, r.value >> 12 AS low,
        floor(extract(epoch FROM COALESCE(reference, now())) * 1000)::BIGINT AS ref
      FROM (
        SELECT h.legacy, h.descending,
          -- a legacy session id held 2^48 - 1 - value
          CASE WHEN h.descending THEN 281474976710655 - h.raw ELSE h.raw END AS value
        FROM (
          SELECT m.legacy, left(old, 3) = 'ses' AS descending,
            ('x' || lpad(CASE WHEN m.legacy THEN substr(old, 5, 12) ELSE '0' END, 16, '0'))::BIT(64)::BIGINT AS raw
          FROM (SELECT COALESCE(old ~ '^(ses|msg|prt|per)_[0-9a-f]{12}[0-9A-Za-z]{14}$', false) AS legacy) AS m
        ) AS h
      ) AS r
    ) AS l
  ) AS t
$$;

CREATE OR REPLACE FUNCTION "parley_ids_64bit_in"(doc TEXT, reference TIMESTAMPTZ) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
  WITH RECURSIVE step(doc, n) AS (
    SELECT doc, 0
    UNION ALL
    SELECT regexp_replace(step.doc, '(?<![/\\])' || found.id || '(?![0-9A-Za-z])', "parley_id_64bit"(found.id, reference), 'g'), step.n + 1
    FROM step
    CROSS JOIN LATERAL (
      SELECT substring(step.doc FROM '(?<![/\\])((?:ses|msg|prt|per)_[0-9a-f]{12}[0-9A-Za-z]{14})(?![0-9A-Za-z])') AS id
    ) AS found
    WHERE found.id IS NOT NULL
  )
  SELECT step.doc FROM step ORDER BY step.n DESC LIMIT 1
$$;

-- Parts first, while their message and session still carry the ids they reference.
UPDATE "Part" AS p
SET "id" = "parley_id_64bit"(p."id", m."timeCreated"),
    "sessionId" = "parley_id_64bit"(p."sessionId", COALESCE((SELECT s."timeCreated" FROM "Session" AS s WHERE s."id" = p."sessionId"), m."timeCreated")),
    "data" = CASE
      WHEN p."data"::TEXT ~ '(ses|msg|prt|per)_[0-9a-f]{12}[0-9A-Za-z]{14}'
        THEN "parley_ids_64bit_in"(p."data"::TEXT, m."timeCreated")::JSONB
      ELSE p."data"
    END
FROM "Message" AS m
WHERE m."id" = p."messageId";

-- Cascades to "Part"."messageId".
UPDATE "Message"
SET "id" = "parley_id_64bit"("id", "timeCreated"),
    "data" = CASE
      WHEN "data"::TEXT ~ '(ses|msg|prt|per)_[0-9a-f]{12}[0-9A-Za-z]{14}'
        THEN "parley_ids_64bit_in"("data"::TEXT, "timeCreated")::JSONB
      ELSE "data"
    END;

UPDATE "PermissionRequest"
SET "id" = "parley_id_64bit"("id", "createdAt"),
    "tool" = CASE
      WHEN "tool"::TEXT ~ '(ses|msg|prt|per)_[0-9a-f]{12}[0-9A-Za-z]{14}'
        THEN "parley_ids_64bit_in"("tool"::TEXT, "createdAt")::JSONB
      ELSE "tool"
    END,
    "metadata" = CASE
      WHEN "metadata"::TEXT ~ '(ses|msg|prt|per)_[0-9a-f]{12}[0-9A-Za-z]{14}'
        THEN "parley_ids_64bit_in"("metadata"::TEXT, "createdAt")::JSONB
      ELSE "metadata"
    END;

-- Cascades to "Session"."parentId" and the "sessionId" of "Message", "Share", "Todo" and "PermissionRequest".
UPDATE "Session"
SET "id" = "parley_id_64bit"("id", "timeCreated"),
    "revert" = CASE
      WHEN "revert"::TEXT ~ '(ses|msg|prt|per)_[0-9a-f]{12}[0-9A-Za-z]{14}'
        THEN "parley_ids_64bit_in"("revert"::TEXT, "timeCreated")::JSONB
      ELSE "revert"
    END;

DROP FUNCTION "parley_ids_64bit_in"(TEXT, TIMESTAMPTZ);

DROP FUNCTION "parley_id_64bit"(TEXT, TIMESTAMPTZ);

COMMIT;
