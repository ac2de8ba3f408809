import path from "node:path";
import { test as base, expect } from "@playwright/test";
import { Cluster, ROOT } from "./support/cluster";
import { type DatabaseKind, type Postgres, locate, startPostgres } from "./support/postgres";

/**
 * The two-instance suite's fixtures. Each Playwright project is one database kind
 * (playwright.instances.config.ts): its worker starts that PostgreSQL, the scripted model
 * and two servers once (`cluster`), and every test gets them with both servers up (a test
 * that killed or stopped one has it started again for the next). When the kind of
 * database cannot be had on this machine, every test of the project is skipped, saying why.
 */

/** Ports: PARLEY_INSTANCES_PORT and up (servers a, b, then PostgreSQL); the external project 10 higher. */
const BASE_PORT = Number(process.env.PARLEY_INSTANCES_PORT ?? 3310);
/** The suite's own folder (wiped at each start): logs of both servers, their data and project. */
const DATA_DIR = process.env.PARLEY_INSTANCES_DATA_DIR ?? ".data-instances";

export const test = base.extend<{ cluster: Cluster }, { database: DatabaseKind; started: Cluster | string }>({
  database: ["embedded", { option: true, scope: "worker" }],
  started: [
    async ({ database }, provide) => {
      const source = await locate(database);
      if ("unavailable" in source) {
        console.log(`[instances] ${database} PostgreSQL: skipped — ${source.unavailable}`);
        await provide(`${database} PostgreSQL: ${source.unavailable}`);
        return;
      }
      const port = BASE_PORT + (database === "embedded" ? 0 : 10);
      let pg: Postgres | undefined;
      let cluster: Cluster | undefined;
      try {
        pg = await startPostgres(source, port + 2);
        console.log(`[instances] ${database} PostgreSQL: ${pg.description}`);
        cluster = await Cluster.start(pg, path.resolve(ROOT, DATA_DIR, database), { a: port, b: port + 1, postgres: port + 2 });
        await provide(cluster);
      } finally {
        await cluster?.close();
        await pg?.close();
      }
    },
    { scope: "worker", timeout: 240_000 },
  ],
  cluster: async ({ started }, provide, testInfo) => {
    if (typeof started === "string") {
      testInfo.skip(true, started);
      return;
    }
    await started.ensureUp();
    await provide(started);
    // A failed test shows what both servers printed (CI keeps no files).
    if (testInfo.status !== testInfo.expectedStatus) {
      for (const instance of [started.a, started.b]) {
        await testInfo.attach(`instance ${instance.name} log`, { body: instance.log(300), contentType: "text/plain" });
      }
    }
  },
});

export { expect };
