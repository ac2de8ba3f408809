import type { z } from "zod";
import { ParleyError } from "./errors";

/**
 * Pagination cursors: the position after a page's last row as an opaque base64url string
 * (a JSON tuple inside). Decoding validates the tuple against the list's schema; anything
 * else is INVALID "cursor is malformed".
 */

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
