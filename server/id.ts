import { randomInt } from "node:crypto";
import { z } from "zod";
import { ParleyError } from "./errors";

/**
 * Prefixed, sortable identifiers. The body is 12 hex characters of
 * time (ms × 0x1000 + a per-millisecond counter, so ids made in one process are strictly
 * monotonic) followed by 14 random base62 characters. Descending ids invert the time
 * bits so that the newest sorts first.
 */
export const PREFIXES = {
  session: "ses",
  message: "msg",
  part: "prt",
  permission: "per",
  user: "usr",
  team: "tem",
  project: "prj",
  share: "shr",
  approval: "apr",
  tool: "tool",
  // Sign-in and teams (server/auth): better-auth's records get Parley ids too.
  authSession: "aus",
  account: "acc",
  verification: "vrf",
  membership: "mem",
  invitation: "inv",
} as const;
export type IdKind = keyof typeof PREFIXES;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const TIME_HEX = 12;
const RANDOM_LENGTH = 14;
const MAX_TIME = 0xffffffffffff; // 48 bits

let lastMs = 0;
let counter = 0;

function randomBase62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

/** Next 48-bit time value; strictly greater than the previous one from this process. */
function nextTimeValue(now: number): number {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else {
    counter++;
    // 4096 ids in one millisecond: borrow the next millisecond so order still holds.
    if (counter >= 0x1000) {
      lastMs++;
      counter = 0;
    }
  }
  return lastMs * 0x1000 + counter;
}

function create(kind: IdKind, descending: boolean, now = Date.now()): string {
  let value = nextTimeValue(now) % (MAX_TIME + 1);
  if (descending) value = MAX_TIME - value;
  return `${PREFIXES[kind]}_${value.toString(16).padStart(TIME_HEX, "0")}${randomBase62(RANDOM_LENGTH)}`;
}

export function ascending(kind: IdKind): string {
  return create(kind, false);
}

export function descending(kind: IdKind): string {
  return create(kind, true);
}

/**
 * 12 hex characters hold 48 bits; after the 12 counter bits, 36 bits of milliseconds
 * remain, so the time field wraps every 2^36 ms (about 795 days, as OpenCode's ids do).
 */
const PERIOD_MS = (MAX_TIME + 1) / 0x1000;
/** Ids may run slightly ahead of the clock (borrowed milliseconds, another host's clock). */
const FUTURE_SLACK_MS = 24 * 60 * 60 * 1000;

/**
 * Epoch ms encoded in an ascending id (or a descending one, when told). The id keeps
 * only the time modulo 2^36 ms; this returns the latest matching time not after
 * `reference` (plus a day of slack), exact for ids made in the last ~795 days.
 */
export function timestamp(id: string, descendingId = false, reference = Date.now()): number {
  const body = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 1 + TIME_HEX);
  let value = Number.parseInt(body, 16);
  if (descendingId) value = MAX_TIME - value;
  const low = Math.floor(value / 0x1000);
  const latest = reference + FUTURE_SLACK_MS;
  return latest - ((((latest - low) % PERIOD_MS) + PERIOD_MS) % PERIOD_MS);
}

const ID_BODY = new RegExp(`^[0-9a-f]{${TIME_HEX}}[0-9A-Za-z]{${RANDOM_LENGTH}}$`);

export function isValid(kind: IdKind, id: string): boolean {
  const prefix = `${PREFIXES[kind]}_`;
  return id.startsWith(prefix) && ID_BODY.test(id.slice(prefix.length));
}

/** zod schema for an id of one kind; the message names the expected prefix. */
export function schema(kind: IdKind) {
  return z
    .string()
    .max(64)
    .refine((id) => isValid(kind, id), { message: `expected a ${PREFIXES[kind]}_ id` });
}

/** Throws INVALID when `id` is not an id of `kind`. */
export function assert(kind: IdKind, id: string): string {
  if (!isValid(kind, id)) {
    throw ParleyError.invalid(`"${id.slice(0, 80)}" is not a valid ${PREFIXES[kind]}_ id`, { kind });
  }
  return id;
}
