import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { databaseUrl } from "../../test/db";
import * as Id from "../id";
import { RunLock } from "./lock";

/** The per-session advisory lock (one runner per session across instances). */

const locks: RunLock[] = [];
function instance(): RunLock {
  const lock = new RunLock(databaseUrl());
  locks.push(lock);
  return lock;
}
afterAll(async () => {
  await Promise.all(locks.map((l) => l.close()));
});

describe("RunLock", () => {
  it("many sessions at once: their queries take turns on the one connection (no overlapping-query warning), results stay right", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on("warning", onWarning);
    try {
      const a = instance();
      const ids = Array.from({ length: 30 }, () => Id.ascending("session"));
      expect(await Promise.all(ids.map((id) => a.tryAcquire(id)))).toEqual(ids.map(() => true));
      expect(await Promise.all(ids.map((id) => instance().isRunning(id)))).toEqual(ids.map(() => true));
      await Promise.all(ids.map((id) => a.release(id)));
      expect(await Promise.all(ids.map((id) => a.isRunning(id)))).toEqual(ids.map(() => false));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.includes("already executing a query"))).toEqual([]);
  });

  it("one holder at a time across instances; released locks can be taken elsewhere", async () => {
    const a = instance();
    const b = instance();
    const s = Id.ascending("session");
    expect(await a.tryAcquire(s)).toBe(true);
    expect(await b.tryAcquire(s)).toBe(false);
    expect(await a.tryAcquire(s)).toBe(false);
    expect(await b.isRunning(s)).toBe(true);
    await a.release(s);
    expect(await b.isRunning(s)).toBe(false);
    expect(await b.tryAcquire(s)).toBe(true);
    await b.release(s);
  });

  it("two concurrent acquisitions on one instance: exactly one wins, and one release frees the lock", async () => {
    const a = instance();
    const b = instance();
    const s = Id.ascending("session");
    const results = await Promise.all([a.tryAcquire(s), a.tryAcquire(s), a.tryAcquire(s)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    await a.release(s);
    // PostgreSQL advisory locks are re-entrant per connection: had more than one call
    // taken it, one release would leave it held forever.
    expect(await b.tryAcquire(s)).toBe(true);
    await b.release(s);
  });

  it("isRunning never takes the lock, so it cannot make a concurrent acquisition fail", async () => {
    const a = instance();
    const s = Id.ascending("session");
    const [running, acquired] = await Promise.all([a.isRunning(s), a.tryAcquire(s)]);
    expect(acquired).toBe(true);
    expect(typeof running).toBe("boolean");
    expect(await a.isRunning(s)).toBe(true);
    const b = instance();
    const [elsewhere, stolen] = await Promise.all([b.isRunning(s), b.tryAcquire(s)]);
    expect(elsewhere).toBe(true);
    expect(stolen).toBe(false);
    await a.release(s);
    expect(await b.isRunning(s)).toBe(false);
  });

  it("isRunning finds the lock for any key (negative and positive hashes alike)", async () => {
    const a = instance();
    const b = instance();
    for (let i = 0; i < 24; i++) {
      const s = Id.ascending("session");
      expect(await b.isRunning(s)).toBe(false);
      expect(await a.tryAcquire(s)).toBe(true);
      expect(await b.isRunning(s)).toBe(true);
      await a.release(s);
      expect(await b.isRunning(s)).toBe(false);
    }
  });

  it("unlocked: of many sessions, exactly those no instance holds (negative and positive hashes alike)", async () => {
    const a = instance();
    const b = instance();
    const ids = Array.from({ length: 24 }, () => Id.ascending("session"));
    const held = ids.filter((_, i) => i % 3 === 0);
    for (const id of held) expect(await a.tryAcquire(id)).toBe(true);
    expect(await b.unlocked(ids)).toEqual(ids.filter((id) => !held.includes(id)));
    expect(await a.unlocked(ids)).toEqual(ids.filter((id) => !held.includes(id)));
    expect(await b.unlocked([])).toEqual([]);
    for (const id of held) await a.release(id);
    expect(await b.unlocked(ids)).toEqual(ids);
  });

  it("a connection the database ends: its locks are reported lost once, and the next call connects again", async () => {
    const name = `parley-lock-test-${process.pid}-${Date.now()}`;
    const url = new URL(databaseUrl());
    url.searchParams.set("application_name", name);
    const a = new RunLock(url.toString());
    locks.push(a);
    const lost: unknown[] = [];
    a.onLost = (error) => lost.push(error);
    const s = Id.ascending("session");
    expect(await a.tryAcquire(s)).toBe(true);
    const admin = instance();
    // What a database restart does to the connection.
    const killer = new pg.Client({ connectionString: databaseUrl() });
    await killer.connect();
    try {
      await killer.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [name]);
    } finally {
      await killer.end();
    }
    await expect.poll(() => lost.length).toBe(1);
    // The lock went with the connection: another instance may take it now.
    expect(await admin.isRunning(s)).toBe(false);
    await a.ping();
    expect(await a.tryAcquire(s)).toBe(true);
    expect(await admin.tryAcquire(s)).toBe(false);
    await a.release(s);
    expect(lost).toHaveLength(1);
  });

  it("releasing what is not held does nothing", async () => {
    const a = instance();
    const b = instance();
    const s = Id.ascending("session");
    expect(await b.tryAcquire(s)).toBe(true);
    await a.release(s);
    expect(await a.tryAcquire(s)).toBe(false);
    await b.release(s);
  });
});
