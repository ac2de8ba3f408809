import { expect, test } from "./fixtures";

test("each instance reports its database, event bridge and run-lock connection as healthy", async ({ cluster }) => {
  for (const instance of [cluster.a, cluster.b]) {
    const { status, body } = await instance.health();
    expect(status).toBe(200);
    expect(body.status).toBe("ok");
    expect(Object.keys(body.checks).sort()).toEqual(["bridge", "database", "lock"]);
    for (const check of Object.values(body.checks)) expect(check.ok).toBe(true);
    // Nothing about where the database is or who signs in to it.
    expect(JSON.stringify(body)).not.toMatch(/postgres(ql)?:|127\.0\.0\.1|parley_instances/);
  }
});
