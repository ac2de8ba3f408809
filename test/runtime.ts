import { afterAll } from "vitest";
import type { Agents } from "../server/agent/agent";
import { assemble } from "../server/assemble";
import { Bus } from "../server/bus/bus";
import { loadConfig } from "../server/config";
import type { Db } from "../server/db/client";
import type { Ruleset } from "../server/permission/schema";
import type { Context, ExecuteTool, Models, Services, Settings } from "../server/services";
import type { Clock } from "../server/clock";
import type { RunLock } from "../server/session/lock";
import { testSandbox } from "./tools";
import type { Tool } from "../server/tool/tool";
import { databaseUrl, testDb } from "./db";
import { titleModel } from "./title-model";
import { offlineModel } from "../server/provider/provider";

/**
 * The services of a test, put together the way the server does it (server/assemble.ts):
 * the real permission service, runners, tools and sandbox, a run lock on the test
 * database, and models the test chooses — none by default (the loop's model throws
 * "no model configured"), the built-in offline model as default model reference, and a
 * title model that answers at once.
 */
const locks: RunLock[] = [];
afterAll(async () => {
  await Promise.all(locks.splice(0).map((lock) => lock.close()));
});

export interface TestServicesOptions {
  db?: Db;
  models?: Partial<Models>;
  settings?: Partial<Settings>;
  configRules?: Ruleset;
  tools?: Tool[];
  executeTool?: ExecuteTool;
  clock?: Clock;
  /** Agents besides the built-in ones (as the configuration's). */
  agents?: Agents;
  /** A run lock of the test's; it is then the test's to close. */
  lock?: RunLock;
}

export function testServices(bus: Bus = new Bus(), options: TestServicesOptions = {}): Services {
  const config = loadConfig({ DATABASE_URL: databaseUrl(), PARLEY_DATA_DIR: "/tmp/parley-test-data" });
  const models: Models = {
    resolve: (ref) => {
      throw new Error(`no model configured for this test (${ref.providerId}/${ref.modelId})`);
    },
    default: () => ({ providerId: "offline", modelId: "parley-offline" }),
    small: () => titleModel(),
    available: () => [],
    ...options.models,
  };
  const settings: Settings = {
    dataDir: config.dataDir,
    projectsRoot: config.projectsRoot,
    forbidden: [config.dataDir],
    maxAttempts: 3,
    compaction: config.compaction,
    flushMs: 20,
    share: "manual",
    ...options.settings,
  };
  const services = assemble({
    db: options.db ?? testDb(),
    bus,
    databaseUrl: databaseUrl(),
    ...(options.lock ? { lock: options.lock } : {}),
    sandbox: testSandbox,
    models,
    settings,
    configRules: options.configRules ?? config.permission,
    ...(options.tools ? { tools: options.tools } : {}),
    ...(options.executeTool ? { executeTool: options.executeTool } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.agents ? { agents: options.agents } : {}),
  });
  if (!options.lock) locks.push(services.lock);
  return services;
}

/** Services whose every model is the built-in offline one (no limits, free), with every bash command allowed: real tools, no network. */
export function offlineServices(bus: Bus): Services {
  return testServices(bus, {
    models: {
      resolve: (ref) => ({ ref, language: offlineModel(), limit: { context: 0, output: 0 }, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }),
      default: () => ({ providerId: "offline", modelId: "parley-offline" }),
    },
    configRules: [{ permission: "bash", pattern: "*", action: "allow" }],
  });
}

/** The same context with some settings changed (share mode, public URL…). */
export function withSettings<C extends Context>(ctx: C, patch: Partial<Settings>): C {
  return { ...ctx, settings: { ...ctx.settings, ...patch } };
}
