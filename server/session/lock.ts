import pg from "pg";

/**
 * One runner per session across every instance: a PostgreSQL session-level
 * advisory lock per session, all held on one dedicated connection of this instance. If
 * the instance dies, PostgreSQL drops the connection and with it every lock at once.
 */
export class RunLock {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly held = new Set<string>();
  /** Acquisitions in flight: PostgreSQL advisory locks are re-entrant per connection, so a
   * second concurrent pg_try_advisory_lock on our one connection would also succeed and
   * one release would then leave the lock held forever. */
  private readonly acquiring = new Set<string>();
  /** Called when the lock connection is lost: every lock it held is gone. */
  onLost: (error: unknown) => void = () => {};
  /** The queries on the one connection, one after another, in the order they were asked. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly connectionString: string) {}

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.connectionString, application_name: "parley-lock" });
      // The connection broke (the database restarted, a network cut): every lock went with it.
      let gone = false;
      const lost = (error: unknown) => {
        // A connection that never opened lost nothing: its connect() rejects instead.
        if (gone || this.client !== client) return;
        gone = true;
        this.client = undefined;
        this.connecting = undefined;
        this.held.clear();
        this.onLost(error);
      };
      client.on("error", lost);
      // close() forgets the client before ending it, so its own end is no loss.
      client.on("end", () => lost(new Error("the run-lock connection ended")));
      await client.connect();
      this.client = client;
      return client;
    })();
    try {
      return await this.connecting;
    } catch (error) {
      this.connecting = undefined;
      throw error;
    }
  }

  /**
   * Run a query on the lock connection after every query asked before it (pg deprecates
   * overlapping queries on one client; the order also keeps an unlock ahead of the next
   * attempt on the same key).
   */
  private query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    const run = this.last.then(async () => (await this.connection()).query<R>(text, values));
    this.last = run.catch(() => undefined);
    return run;
  }

  async tryAcquire(sessionId: string): Promise<boolean> {
    if (this.held.has(sessionId) || this.acquiring.has(sessionId)) return false;
    this.acquiring.add(sessionId);
    try {
      const result = await this.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [sessionId]);
      const ok = result.rows[0]?.ok === true;
      if (ok) this.held.add(sessionId);
      return ok;
    } finally {
      this.acquiring.delete(sessionId);
    }
  }

  async release(sessionId: string): Promise<void> {
    if (!this.held.delete(sessionId)) return;
    await this.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [sessionId]);
  }

  /**
   * True when some instance (this one included) is running the session. Looks the lock up
   * in pg_locks instead of taking it: taking it, even briefly, would make a runner
   * starting at the same moment think the session is busy and not start.
   */
  async isRunning(sessionId: string): Promise<boolean> {
    if (this.held.has(sessionId)) return true;
    // A bigint advisory key is stored as classid = high 32 bits, objid = low 32 bits, objsubid 1.
    const result = await this.query<{ running: boolean }>(
      `SELECT EXISTS (
         SELECT 1 FROM pg_locks
         WHERE locktype = 'advisory' AND granted AND objsubid = 1
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND classid = ((key >> 32) & 4294967295)::oid
           AND objid = (key & 4294967295)::oid
       ) AS running
       FROM (SELECT hashtextextended($1, 0) AS key) AS k`,
      [sessionId],
    );
    return result.rows[0]?.running === true;
  }

  /**
   * Of `sessionIds`, those whose lock no instance holds, in their order (one query): crash recovery tries
   * to take only these, instead of one attempt per session running elsewhere.
   */
  async unlocked(sessionIds: string[]): Promise<string[]> {
    if (!sessionIds.length) return [];
    const result = await this.query<{ id: string }>(
      `SELECT k.id FROM unnest($1::text[]) WITH ORDINALITY AS k(id, n)
       WHERE NOT EXISTS (
         SELECT 1 FROM pg_locks
         WHERE locktype = 'advisory' AND granted AND objsubid = 1
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND classid = ((hashtextextended(k.id, 0) >> 32) & 4294967295)::oid
           AND objid = (hashtextextended(k.id, 0) & 4294967295)::oid
       )
       ORDER BY k.n`,
      [sessionIds],
    );
    return result.rows.map((row) => row.id);
  }

  /** A round trip on the lock connection (opened again first when it was lost): the health check's. */
  async ping(): Promise<void> {
    await this.query("SELECT 1", []);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.held.clear();
    if (client) await client.end();
  }
}
