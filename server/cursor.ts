import { z } from "zod";
import { ParleyError } from "./errors";

/**
 * Pagination cursors: the position after a page's last row as an opaque base64url string
 * (a JSON tuple inside). Decoding validates the tuple against the list's schema; anything
 * else is INVALID "cursor is malformed". A cursor comes from the client, so its schema must
 * admit only values the database accepts (the pieces below), never a driver error.
 */

/** The largest time a JavaScript Date holds, in ms either side of 1970. */
const MAX_TIME_MS = 8.64e15;
/** A time inside a cursor (ms since 1970): one a Date can hold. */
export const CursorTime = z.number().int().min(-MAX_TIME_MS).max(MAX_TIME_MS);
/** A row id inside a cursor: printable ASCII (PostgreSQL refuses NUL bytes in text). */
export const CursorId = z.string().min(1).max(64).regex(/^[\x21-\x7e]+$/);
/** Decimal digits of a BIGINT (at most 2^63 - 1). */
export const CursorBigint = z.string().refine((key) => /^\d{1,19}$/.test(key) && BigInt(key) <= 9223372036854775807n, "not a BIGINT");
/** A decimal number inside a cursor. */
export const CursorDecimal = z.string().regex(/^\d{1,30}(\.\d{1,30})?$/);
/** Decimal digits of a time in ms, as CursorTime. */
export const CursorTimeText = z.string().refine((key) => /^\d{1,16}$/.test(key) && Number(key) <= MAX_TIME_MS, "not a time");

export function encodeCursor(position: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

export function decodeCursor<S extends z.ZodType>(schema: S, cursor: string): z.output<S> {
  try {
    return schema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch (error) {
    throw new ParleyError("INVALID", "cursor is malformed", { cause: error });
  }
}
