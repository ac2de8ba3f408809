import { afterAll } from "vitest";
import type { Bus } from "../server/bus/bus";
import { loadConfig } from "../server/config";
import { Permissions } from "../server/permission/permission";
import type { Ruleset } from "../server/permission/schema";
import type { Runtime } from "../server/runtime";
import type { Engine } from "../server/session/engine";
import { RunLock } from "../server/session/lock";
import type { Deps } from "../server/session/prompt";
import { Runners } from "../server/session/runner";
import { builtinTools, executeTool } from "../server/tool/registry";
import { testSandbox } from "../server/tool/testing";
import { databaseUrl, testDb } from "./db";
import { titleModel } from "./title-model";

/**
 * The services a tRPC context or a prompt needs, built for tests around a given bus:
 * the real tools and permission service, a run lock on the test database, and a model
 * the test chooses (the built-in offline model by default, via the real provider code).
 */
const locks: RunLock[] = [];
afterAll(async () => {
  await Promise.all(locks.splice(0).map((lock) => lock.close()));
});

export function testServices(bus: Bus, options: { engine?: Partial<Engine>; dataDir?: string; configRules?: Ruleset } = {}): Pick<Runtime, "deps" | "permissions" | "config"> {
  const config = loadConfig({ DATABASE_URL: databaseUrl(), PARLEY_DATA_DIR: options.dataDir ?? "/tmp/parley-test-data" });
  const lock = new RunLock(databaseUrl());
  locks.push(lock);
  const db = testDb();
  const permissions = new Permissions(db, bus, { configRules: options.configRules ?? config.permission });
  const engine: Engine = {
    db,
    bus,
    lock,
    dataDir: config.dataDir,
    resolveModel: (ref) => {
      throw new Error(`no model configured for this test (${ref.providerId}/${ref.modelId})`);
    },
    defaultModel: () => ({ providerId: "offline", modelId: "parley-offline" }),
    smallModel: () => titleModel(),
    maxAttempts: 3,
    compaction: config.compaction,
    flushMs: 20,
    ...options.engine,
  };
  const deps: Deps = { engine, runners: new Runners(bus), permissions, sandbox: testSandbox, forbidden: [engine.dataDir], tools: builtinTools(), executeTool };
  return { deps, permissions, config };
}
