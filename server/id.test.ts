import { describe, expect, it } from "vitest";
import { ParleyError } from "./errors";
import * as Id from "./id";

describe("Id", () => {
  it("recognises only ids of the requested kind", () => {
    const session = Id.descending("session");
    const message = Id.ascending("message");
    expect(session).toMatch(/^ses_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
    expect(message).toMatch(/^msg_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
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

  it("timestamp resolves the 2^36 ms wrap of the 12-hex time field against a reference time", () => {
    const period = 2 ** 36;
    const id = Id.ascending("message");
    const made = Id.timestamp(id);
    // Read one period later, the same id is taken to be one period newer; a day earlier, it is the previous period.
    expect(Id.timestamp(id, false, made + period)).toBe(made + period);
    expect(Id.timestamp(id, false, made - 2 * 24 * 60 * 60 * 1000)).toBe(made - period);
  });
});
