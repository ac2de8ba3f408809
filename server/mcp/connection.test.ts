import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestMcpServer, startMcpServer } from "../../test/mcp-server";
import { Connection, OPEN_TIMEOUT_FACTOR, remoteClient } from "./connection";

/** One connection to a tool server: shared while used, closed when idle, opened again by the next use. */

describe("Connection", () => {
  let mcp: TestMcpServer;
  beforeAll(async () => {
    mcp = await startMcpServer({ secret: "conn-secret-0123456789" });
  });
  afterAll(() => mcp.close());

  const open = () =>
    remoteClient({ url: mcp.url, headers: { authorization: "Bearer conn-secret-0123456789" }, allowPrivate: true, maxResponseBytes: 1_000_000, connectTimeoutMs: 5_000, onError: () => undefined });

  it("is shared by concurrent uses, closes after its idle time, and the next use opens it again", async () => {
    let opened = 0;
    const connection = new Connection({ open: () => (opened++, open()), secrets: [], idleMs: 100, connectTimeoutMs: 5_000, now: Date.now });
    const [a, b] = await Promise.all([connection.list(), connection.list()]);
    expect(a.tools.map((t) => t.name)).toEqual(b.tools.map((t) => t.name));
    expect(opened).toBe(1);
    expect(connection.status.state).toBe("connected");
    for (const deadline = Date.now() + 5_000; connection.status.state !== "idle"; ) {
      if (Date.now() > deadline) throw new Error("the connection never closed");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await connection.list();
    expect(opened).toBe(2);
    await connection.close();
  });

  it("a failed start waits its backoff before the next attempt, and says so; its secrets never show in the status", async () => {
    let now = 1_000;
    const connection = new Connection({
      open: () => Promise.reject(new Error("refused with token conn-secret-0123456789")),
      secrets: ["conn-secret-0123456789"],
      idleMs: 1_000,
      connectTimeoutMs: 1_000,
      backoffMs: 1_000,
      now: () => now,
    });
    await expect(connection.list()).rejects.toThrow("refused with token [secret]");
    expect(connection.status).toMatchObject({ state: "failed", error: "refused with token [secret]" });
    await expect(connection.list()).rejects.toThrow(/next attempt in 1 s/);
    now += 1_001;
    await expect(connection.list()).rejects.toThrow("refused with token [secret]");
    await expect(connection.list()).rejects.toThrow(/next attempt in 2 s/);
    await connection.close();
  });

  it("an opening that never settles (an OAuth endpoint that stalls) fails at its deadline instead of holding every use; the next use opens again", async () => {
    let opened = 0;
    const connection = new Connection({ open: () => (opened++, new Promise<never>(() => undefined)), secrets: [], idleMs: 1_000, connectTimeoutMs: 100, now: Date.now });
    const started = Date.now();
    const uses = [connection.list(), connection.list()];
    for (const use of uses) await expect(use).rejects.toThrow(`did not connect within ${100 * OPEN_TIMEOUT_FACTOR} ms`);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(connection.status.state).toBe("failed");
    expect(opened).toBe(1);
    await expect(connection.list()).rejects.toThrow("did not connect within");
    expect(opened).toBe(2);
    await connection.close();
  });
});
