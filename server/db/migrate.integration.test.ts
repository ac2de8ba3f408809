import pg from "pg";
import { describe, expect, it } from "vitest";
import { ownDatabase } from "../../test/db";
import { applyMigrations } from "./migrate";

/**
 * Migrating leaves nothing behind on the database: every instance migrates at start, and
 * a connection (with the schema engine's session-level advisory lock) left open by one
 * would make the next instance's migration wait for that lock and time out.
 */
describe("applyMigrations", () => {
  it("closes its connections, so that another process can migrate the same database at once after it", async () => {
    const db = await ownDatabase("migrate_closes");
    try {
      await applyMigrations(db.url);
      const name = new URL(db.url).pathname.slice(1);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const others = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
        expect(others.rows[0]?.n).toBe(0);
        const locks = await client.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = $1)",
          [name],
        );
        expect(locks.rows[0]?.n).toBe(0);
      } finally {
        await client.end();
      }
      // Two migrations at once (two instances starting together) both succeed.
      expect(await Promise.all([applyMigrations(db.url), applyMigrations(db.url)])).toEqual([[], []]);
    } finally {
      await db.drop();
    }
  });
});
