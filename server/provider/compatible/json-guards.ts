/** Guards for JSON a provider sent (untrusted): what the stream readers check before they trust a shape. */

export type Json = Record<string, unknown>;

/** A JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Absent: undefined or null (what zod's `.nullish()` accepts). */
export const isNullish = (value: unknown): value is null | undefined => value === undefined || value === null;
