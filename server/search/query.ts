import { Prisma } from "../db/client";

/**
 * A search as SQL. The stored words of a part (the generated column `Part.search`, see
 * its migration) are its text with ASCII punctuation turned into spaces, parsed with the
 * 'simple' configuration; a query is normalized the same way here, so "session-list.tsx"
 * is the phrase session ‹-› list ‹-› tsx on both sides. Each whitespace-separated term is
 * a phrase (phraseto_tsquery, which takes any text: nothing a member types is query
 * syntax) and every term must match. The title keeps its substring match (ILIKE).
 */

/** The ASCII punctuation the column's `translate` turns into spaces (same order, 32 characters). */
export const PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
const PUNCTUATION_RE = /[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/g;

/** At most this many terms count; a longer query is cut (each one is a phrase to match). */
export const MAX_TERMS = 8;

/** The terms of a query, each normalized like the stored words (empty ones dropped). */
export function terms(query: string): string[] {
  return query
    .split(/\s+/)
    .map((term) => term.replace(PUNCTUATION_RE, " ").trim().replace(/\s+/g, " "))
    .filter((term) => /[\p{L}\p{N}]/u.test(term))
    .slice(0, MAX_TERMS);
}

/** Lower-cased words of the terms: what a snippet marks. */
export function words(query: string): Set<string> {
  return new Set(terms(query).flatMap((term) => term.toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? []));
}

/** The tsquery of a query's terms, or undefined when it has none (only punctuation). */
export function tsQuery(query: string): Prisma.Sql | undefined {
  const list = terms(query);
  if (!list.length) return undefined;
  return Prisma.join(
    list.map((term) => Prisma.sql`phraseto_tsquery('simple', ${term})`),
    " && ",
  );
}

/** ILIKE pattern matching `text` literally anywhere. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, "\\$&")}%`;
}

/**
 * Whether session `s` matches: its title contains the query, or one of its parts holds
 * every term. For filters that need every match (the dashboard's totals); a page of
 * results in recency order is cheaper with `Search.sessions`.
 */
export function sessionMatches(query: string): Prisma.Sql {
  const title = Prisma.sql`s."title" ILIKE ${containsPattern(query)}`;
  const ts = tsQuery(query);
  if (!ts) return title;
  return Prisma.sql`(${title} OR s."id" IN (SELECT p."sessionId" FROM "Part" p WHERE p."search" @@ (${ts})))`;
}
