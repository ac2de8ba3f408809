import { describe, expect, it } from "vitest";
import { type Probes, bootFailed, check, httpStatusOf } from "./health";

/** /api/health's verdict from its probes (the endpoint itself runs in the two-instance suite, e2e/instances). */

const healthy: Probes = { database: async () => 1, lock: async () => undefined, bridgeConnected: () => true, draining: () => false };

/** A driver error as pg throws it: a message naming the server, and a SQLSTATE. */
function pgError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

describe("health check", () => {
  it("is ok (200) when the database, the bridge and the lock connection answer", async () => {
    const result = await check(healthy);
    expect(result).toMatchObject({ status: "ok", checks: { database: { ok: true }, bridge: { ok: true }, lock: { ok: true } } });
    expect(httpStatusOf(result)).toBe(200);
  });

  it("fails (503) on any failed check, naming the kind of failure and never the database's message", async () => {
    const secret = "connect ECONNREFUSED 10.1.2.3:5432 (postgresql://parley:hunter2@db/parley)";
    const result = await check({ ...healthy, database: async () => Promise.reject(pgError(secret)), lock: async () => Promise.reject(pgError('password authentication failed for user "parley"', "28P01")) });
    expect(result.status).toBe("failing");
    expect(httpStatusOf(result)).toBe(503);
    expect(result.checks.database).toMatchObject({ ok: false, error: "unreachable" });
    expect(result.checks.lock).toMatchObject({ ok: false, error: "28P01" });
    expect(JSON.stringify(result)).not.toMatch(/hunter2|10\.1\.2\.3|parley/);

    expect((await check({ ...healthy, bridgeConnected: () => false })).checks.bridge).toEqual({ ok: false, ms: 0, error: "disconnected" });
  });

  it("fails a check that does not answer in time", async () => {
    const result = await check({ ...healthy, lock: () => new Promise(() => undefined) }, 50);
    expect(result.status).toBe("failing");
    expect(result.checks.lock).toMatchObject({ ok: false, error: "timeout" });
  });

  it("says draining (503) once the instance is shutting down, so a load balancer sends nothing more", async () => {
    const result = await check({ ...healthy, draining: () => true });
    expect(result.status).toBe("draining");
    expect(httpStatusOf(result)).toBe(503);
  });

  it("reports a server that could not start its services as failing", () => {
    const result = bootFailed(pgError("connect ECONNREFUSED 127.0.0.1:5432"));
    expect(result.status).toBe("failing");
    expect(result.checks.database.error).toBe("unreachable");
  });
});
