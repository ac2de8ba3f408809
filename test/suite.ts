import { afterAll, beforeAll } from "vitest";

/**
 * What a `describe` opens once for all its tests: `open` runs in the suite's beforeAll,
 * `close` in its afterAll (when `open` got that far). The object returned reads the opened
 * value's fields when a test reads them, so a suite declares its fixture in one line
 * instead of a `let` per field and an assignment in beforeAll; a field read before
 * beforeAll has run throws, naming it.
 */
export function suiteFixture<T extends object>(open: () => Promise<T>, close: (value: T) => Promise<unknown> | void): T {
  let value: T | undefined;
  beforeAll(async () => {
    value = await open();
  });
  afterAll(async () => {
    if (value) await close(value);
  });
  return new Proxy({} as T, {
    get(_, key) {
      if (!value) throw new Error(`the suite's fixture is read (${String(key)}) before its beforeAll has run`);
      return Reflect.get(value, key);
    },
  });
}
