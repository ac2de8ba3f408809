import { z } from "zod";

/**
 * PostgreSQL's `text` and `jsonb` cannot hold U+0000 (NUL): a row carrying one fails to
 * be written. What users type is refused with a clear message (`refuseNul`); what tools
 * and models produce (`printf 'a\0b'`, `find -print0`) is stored with every NUL replaced
 * by U+FFFD, the Unicode replacement character (`withoutNul`), so the turn goes on and
 * the output stays readable.
 */

export const NUL_REPLACEMENT = "\uFFFD";
export const NUL_REFUSED = "must not contain the NUL character (\\0)";

export function hasNul(value: string): boolean {
  return value.includes("\0");
}

/** A string schema that refuses NUL, naming what was refused. */
export function refuseNul<T extends z.ZodType<string>>(schema: T, what = "text") {
  return schema.refine((value) => !hasNul(value), { message: `${what} ${NUL_REFUSED}` });
}

/** A copy of a JSON-like value (strings, arrays, plain objects and their keys) with every NUL replaced; values without NUL are returned as they are. */
export function withoutNul<T>(value: T): T {
  return clean(value) as T;
}

function clean(value: unknown): unknown {
  if (typeof value === "string") return hasNul(value) ? value.replaceAll("\0", NUL_REPLACEMENT) : value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = clean(item);
      if (next !== item) (copy ??= [...value])[i] = next;
    });
    return copy ?? value;
  }
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    const entries = Object.entries(value);
    let changed = false;
    const next = entries.map(([key, item]): [string, unknown] => {
      const k = clean(key) as string;
      const v = clean(item);
      if (k !== key || v !== item) changed = true;
      return [k, v];
    });
    return changed ? Object.fromEntries(next) : value;
  }
  return value;
}
