import { randomInt } from "node:crypto";
import { z } from "zod";
import { ParleyError } from "./errors";

/**
 * Prefixed, sortable identifiers (SPEC §1). The body is 16 hex characters of time
 * (ms × 0x1000 + a per-millisecond counter, so ids made in one process are strictly
 * monotonic) followed by 14 random base62 characters. 64 bits leave 52 bits of
 * milliseconds: the field does not wrap before the year 144,000. Descending ids invert
 * the time bits so that the newest sorts first.
 *
 * Ids made before this format had a 12-hex time field, which wraps every 2^36 ms (about
 * 795 days; the last wrap was 2026-08-14). The migration `20261125080000_ids_64bit_time`
 * rewrote every stored session, message, part and permission-request id (the kinds whose
 * order is read) into this format, and every reference to them; other kinds keep their
 * legacy ids, which nothing sorts on, so both body shapes stay valid.
 */
export const PREFIXES = {
  session: "ses",
  message: "msg",
  part: "prt",
  permission: "per",
  user: "usr",
  team: "tem",
  project: "prj",
  workspace: "wsp",
  share: "shr",
  approval: "apr",
  tool: "tool",
  // Sign-in and teams (server/auth): better-auth's records get Parley ids too.
  authSession: "aus",
  account: "acc",
  verification: "vrf",
  membership: "mem",
  invitation: "inv",
  secret: "sec",
  command: "cmd",
  provider: "prv",
  toolServer: "mcp",
  version: "ver",
} as const;
export type IdKind = keyof typeof PREFIXES;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const TIME_HEX = 16;
const RANDOM_LENGTH = 14;
const COUNTER = 0x1000n;
const MAX_TIME = (1n << 64n) - 1n;
/** The wrapping 12-hex time field of ids made before the 64-bit one; still accepted as a shape. */
const LEGACY_TIME_HEX = 12;

function randomBase62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export interface Generator {
  ascending(kind: IdKind): string;
  descending(kind: IdKind): string;
}

/**
 * Ids read from `clock`; each generator keeps its own monotonic state. The process uses
 * one on Date.now (`ascending`/`descending` below); tests pass their own clock.
 */
export function generator(clock: () => number = Date.now): Generator {
  let lastMs = 0;
  let counter = 0;
  /** Next 64-bit time value; strictly greater than the previous one of this generator. */
  function nextTimeValue(): bigint {
    const now = Math.floor(clock());
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
    return BigInt(lastMs) * COUNTER + BigInt(counter);
  }
  function create(kind: IdKind, descendingId: boolean): string {
    let value = nextTimeValue();
    if (descendingId) value = MAX_TIME - value;
    return `${PREFIXES[kind]}_${value.toString(16).padStart(TIME_HEX, "0")}${randomBase62(RANDOM_LENGTH)}`;
  }
  return { ascending: (kind) => create(kind, false), descending: (kind) => create(kind, true) };
}

const processIds = generator();

export function ascending(kind: IdKind): string {
  return processIds.ascending(kind);
}

export function descending(kind: IdKind): string {
  return processIds.descending(kind);
}

/** Epoch ms encoded in an id of the current format (ascending, or descending when told). */
export function timestamp(id: string, descendingId = false): number {
  const start = id.indexOf("_") + 1;
  const body = id.slice(start, start + TIME_HEX);
  if (!/^[0-9a-f]{16}$/.test(body) || !/^[0-9A-Za-z]{14}$/.test(id.slice(start + TIME_HEX))) {
    throw ParleyError.invalid(`"${id.slice(0, 80)}" is not an id of the 64-bit time format`);
  }
  let value = BigInt(`0x${body}`);
  if (descendingId) value = MAX_TIME - value;
  return Number(value / COUNTER);
}

const ID_BODY = new RegExp(
  `^(?:[0-9a-f]{${TIME_HEX}}|[0-9a-f]{${LEGACY_TIME_HEX}})[0-9A-Za-z]{${RANDOM_LENGTH}}$`,
);

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

/** The legacy time field wrapped every 2^36 ms; its 48 bits held ms × 0x1000 + counter. */
const LEGACY_WRAP_MS = 1n << 36n;
const LEGACY_MAX_TIME = (1n << 48n) - 1n;
const LEGACY_MIGRATED = /^(ses|msg|prt|per)_([0-9a-f]{12})([0-9A-Za-z]{14})$/;

/**
 * The id that a legacy id of a migrated kind (session, message, part, permission request)
 * has had since the migration `20261125080000_ids_64bit_time`, so that links made before it
 * still lead somewhere; undefined for any other id. Of the milliseconds the wrapped field
 * could mean, the one nearest `now` is taken (the migration took the one nearest the row's
 * creation: the two agree for ids made less than 2^35 ms, about 397 days, ago), exactly as
 * the migration computes it.
 */
export function fromLegacy(id: string, now: number = Date.now()): string | undefined {
  const match = LEGACY_MIGRATED.exec(id);
  if (!match) return undefined;
  const [, prefix = "", hex = "", random = ""] = match;
  const descendingId = prefix === "ses";
  let value = BigInt(`0x${hex}`);
  if (descendingId) value = LEGACY_MAX_TIME - value;
  const low = value / COUNTER;
  const ref = BigInt(Math.floor(now));
  const wraps = (ref - low + LEGACY_WRAP_MS / 2n) / LEGACY_WRAP_MS;
  let time = (low + (wraps > 0n ? wraps : 0n) * LEGACY_WRAP_MS) * COUNTER + (value % COUNTER);
  if (descendingId) time = MAX_TIME - time;
  return `${prefix}_${time.toString(16).padStart(TIME_HEX, "0")}${random}`;
}
