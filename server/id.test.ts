import { afterEach, describe, expect, it, vi } from "vitest";
import { ParleyError } from "./errors";
import * as Id from "./id";

describe("Id", () => {
  it("recognises only ids of the requested kind", () => {
    const session = Id.descending("session");
    const message = Id.ascending("message");
    expect(session).toMatch(/^ses_[0-9a-f]{16}[0-9A-Za-z]{14}$/);
    expect(message).toMatch(/^msg_[0-9a-f]{16}[0-9A-Za-z]{14}$/);
    expect(Id.isValid("session", session)).toBe(true);
    expect(Id.isValid("message", message)).toBe(true);
    expect(Id.isValid("message", session)).toBe(false);
    expect(Id.isValid("session", message)).toBe(false);
    expect(Id.isValid("part", `prt_${message.slice(4)}`)).toBe(true);
    // Right prefix, broken body.
    expect(Id.isValid("session", "ses_")).toBe(false);
    expect(Id.isValid("session", `${session}x`)).toBe(false);
    expect(Id.isValid("session", `ses_${"Z".repeat(12)}${"a".repeat(14)}`)).toBe(false);
    expect(Id.isValid("session", ` ${session}`)).toBe(false);
    // Ids stored in the legacy 12-hex shape (kinds the id migration did not rewrite) stay valid.
    expect(Id.isValid("user", `usr_${"0".repeat(11)}1${"a".repeat(14)}`)).toBe(true);
    expect(Id.isValid("user", `usr_${"0".repeat(14)}${"a".repeat(14)}`)).toBe(false);
  });

  it("assert returns a valid id and throws INVALID naming the prefix otherwise", () => {
    const id = Id.ascending("part");
    expect(Id.assert("part", id)).toBe(id);
    let thrown: unknown;
    try {
      Id.assert("part", Id.ascending("message"));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ParleyError);
    expect((thrown as ParleyError).code).toBe("INVALID");
    expect((thrown as ParleyError).message).toContain("prt_");
  });

  it("schema accepts the kind and rejects other prefixes with a message naming the prefix", () => {
    const schema = Id.schema("permission");
    const good = Id.ascending("permission");
    expect(schema.parse(good)).toBe(good);
    const bad = schema.safeParse(Id.ascending("part"));
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain("per_");
    expect(schema.safeParse(42).success).toBe(false);
    expect(schema.safeParse(`per_${"a".repeat(100)}`).success).toBe(false);
  });

  it("ascending ids made in one process are strictly increasing, even thousands per millisecond", () => {
    let previous = Id.ascending("message");
    let violations = 0;
    for (let i = 0; i < 100_000; i++) {
      const next = Id.ascending("message");
      if (!(next > previous)) violations++;
      previous = next;
    }
    expect(violations).toBe(0);
  });

  it("descending ids sort newest first", async () => {
    const made: string[] = [];
    for (let i = 0; i < 2000; i++) made.push(Id.descending("session"));
    await new Promise((resolve) => setTimeout(resolve, 5));
    made.push(Id.descending("session"));
    for (let i = 1; i < made.length; i++) {
      expect(made[i]! < made[i - 1]!).toBe(true);
    }
    // Sorting as strings puts the newest first.
    expect([...made].sort()).toEqual([...made].reverse());
  });

  it("timestamp decodes the creation time of ascending and descending ids", () => {
    const before = Date.now();
    const asc = Id.ascending("part");
    const desc = Id.descending("session");
    const after = Date.now();
    // Borrowed milliseconds (more than 4096 ids in one ms) may run a little ahead.
    const ascTime = Id.timestamp(asc);
    const descTime = Id.timestamp(desc, true);
    expect(ascTime).toBeGreaterThanOrEqual(before);
    expect(ascTime).toBeLessThanOrEqual(after + 100);
    expect(descTime).toBeGreaterThanOrEqual(before);
    expect(descTime).toBeLessThanOrEqual(after + 100);
    // Read without the flag, a descending id does not give its time.
    expect(Math.abs(Id.timestamp(desc) - before)).toBeGreaterThan(1_000_000);
  });

  it("timestamp refuses an id without the 64-bit time field", () => {
    expect(() => Id.timestamp(`msg_${"0".repeat(12)}${"a".repeat(14)}`)).toThrow(ParleyError);
  });
});

describe("Id time field (SPEC §1: it must not wrap for centuries)", () => {
  const JULY_2026 = Date.UTC(2026, 6, 20, 12);
  const NOVEMBER_2026 = Date.UTC(2026, 10, 25, 8);

  afterEach(() => {
    vi.useRealTimers();
  });

  /** A fresh copy of the module, so its process-wide monotonic state starts at zero. */
  async function freshIds(): Promise<typeof Id> {
    vi.resetModules();
    return import("./id");
  }

  it("an id made now sorts after one made in July 2026, across the old field's 2026-08-14 wrap", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const ids = await freshIds();
    vi.setSystemTime(JULY_2026);
    const julyMessage = ids.ascending("message");
    const julySession = ids.descending("session");
    vi.setSystemTime(NOVEMBER_2026);
    const nowMessage = ids.ascending("message");
    const nowSession = ids.descending("session");
    expect(julyMessage < nowMessage).toBe(true);
    // Sessions are descending: the newer one sorts first.
    expect(nowSession < julySession).toBe(true);
    expect(ids.timestamp(julyMessage)).toBe(JULY_2026);
    expect(ids.timestamp(nowSession, true)).toBe(NOVEMBER_2026);
  });

  it("keeps ascending and descending order for centuries", () => {
    let clock = NOVEMBER_2026;
    const ids = Id.generator(() => clock);
    const times = [
      Date.UTC(2026, 7, 14),
      Date.UTC(2026, 7, 15),
      NOVEMBER_2026,
      Date.UTC(2028, 10, 25),
      Date.UTC(2100, 0, 1),
      Date.UTC(2300, 0, 1),
      Date.UTC(2900, 0, 1),
    ];
    const asc: string[] = [];
    const desc: string[] = [];
    for (const t of times) {
      clock = t;
      asc.push(ids.ascending("part"));
      desc.push(ids.descending("session"));
      expect(Id.timestamp(asc.at(-1)!)).toBe(t);
      expect(Id.timestamp(desc.at(-1)!, true)).toBe(t);
      expect(Id.isValid("part", asc.at(-1)!)).toBe(true);
      expect(Id.isValid("session", desc.at(-1)!)).toBe(true);
    }
    expect([...asc].sort()).toEqual(asc);
    expect([...desc].sort()).toEqual([...desc].reverse());
  });

  it("a generator stays strictly monotonic when its clock goes back", () => {
    let clock = NOVEMBER_2026;
    const ids = Id.generator(() => clock);
    const first = ids.ascending("message");
    clock = JULY_2026;
    const second = ids.ascending("message");
    expect(second > first).toBe(true);
  });
});

describe("fromLegacy", () => {
  const random = "AbCdEfGhIjKlMn";
  /** An id of the legacy format for a millisecond and counter (its 48-bit field wraps). */
  const legacy = (prefix: string, ms: number, counter: number) => {
    let value = (BigInt(ms) * 0x1000n + BigInt(counter)) % (1n << 48n);
    if (prefix === "ses") value = (1n << 48n) - 1n - value;
    return `${prefix}_${value.toString(16).padStart(12, "0")}${random}`;
  };
  const current = (prefix: string, ms: number, counter: number) => {
    let value = BigInt(ms) * 0x1000n + BigInt(counter);
    if (prefix === "ses") value = (1n << 64n) - 1n - value;
    return `${prefix}_${value.toString(16).padStart(16, "0")}${random}`;
  };
  const july = Date.UTC(2026, 6, 20, 12, 0, 0, 123);
  const november = Date.UTC(2026, 10, 25, 9, 0, 0, 456);

  it("gives the id the migration gave: same millisecond (across the 2026-08-14 wrap), counter and random part", () => {
    for (const prefix of ["ses", "msg", "prt", "per"]) {
      for (const ms of [july, november]) {
        expect(Id.fromLegacy(legacy(prefix, ms, 7), november + 60_000)).toBe(current(prefix, ms, 7));
      }
    }
    // July's and November's legacy fields are out of order; their new ids are not.
    expect(legacy("msg", july, 0) > legacy("msg", november, 0)).toBe(true);
    expect((Id.fromLegacy(legacy("msg", july, 0), november) ?? "") < (Id.fromLegacy(legacy("msg", november, 0), november) ?? "")).toBe(true);
  });

  it("leaves ids of the current format, and kinds that were not migrated, alone", () => {
    expect(Id.fromLegacy(current("ses", november, 1))).toBeUndefined();
    expect(Id.fromLegacy(legacy("usr", july, 1))).toBeUndefined();
    expect(Id.fromLegacy("ses_nonsense")).toBeUndefined();
  });
});
