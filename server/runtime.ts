import { Bus } from "./bus/bus";
import { type Bridge, bridge } from "./bus/postgres";
import { type Config, config } from "./config";
import { type Db, createDb } from "./db/client";
import { wire } from "./session/wire";

/**
 * The server's long-lived pieces, made once per process: configuration, the database
 * client, the event bus and its PostgreSQL bridge. Kept on globalThis so Next's dev
 * reloads reuse them instead of leaking connections.
 */
export interface Runtime {
  config: Config;
  db: Db;
  bus: Bus;
  bridge: Bridge;
}

const KEY = Symbol.for("parley.runtime");
type Holder = { [KEY]?: Promise<Runtime> };

async function boot(): Promise<Runtime> {
  const cfg = config();
  if (!cfg.databaseUrl) {
    throw new Error(
      "DATABASE_URL is not set. Start Parley with `npm run dev` or `npm start`, which start the embedded PostgreSQL, or set DATABASE_URL.",
    );
  }
  const db = createDb(cfg.databaseUrl);
  const bus = new Bus();
  const link = await bridge(bus, cfg.databaseUrl, { encode: wire });
  return { config: cfg, db, bus, bridge: link };
}

export function runtime(): Promise<Runtime> {
  const holder = globalThis as Holder;
  holder[KEY] ??= boot().catch((error: unknown) => {
    delete holder[KEY];
    throw error;
  });
  return holder[KEY];
}
