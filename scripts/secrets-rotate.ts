/**
 * `npm run secrets:rotate`: re-seals every team secret under the current server secret key
 * (PARLEY_SECRET_KEY, or the key file `<dataDir>/secret-key` when it is unset). Run it
 * with the old key(s) in PARLEY_SECRET_KEY_PREVIOUS; afterwards they are no longer needed.
 * Uses DATABASE_URL, or the embedded PostgreSQL of the data directory (started, or joined
 * when the server runs). Prints counts only — never a value or a key.
 */
import path from "node:path";
import { configKeyring } from "../server/assemble";
import { loadConfig } from "../server/config";
import { createDb } from "../server/db/client";
import { type EmbeddedDatabase, startEmbeddedDatabase } from "../server/db/embedded";
import { Secrets } from "../server/secrets";

function log(message: string): void {
  console.log(`[secrets:rotate] ${message}`);
}

async function main(): Promise<void> {
  const cfg = loadConfig();
  let embedded: EmbeddedDatabase | undefined;
  let url = cfg.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedDatabase({ dataDir: cfg.dataDir });
    log(`${embedded.owned ? "started" : "joined"} embedded PostgreSQL in ${path.join(cfg.dataDir, "pg")}`);
    url = embedded.url;
  }
  const db = createDb(url);
  let unopened = 0;
  try {
    const keyring = configKeyring(cfg);
    const { resealed, current, failed } = await Secrets.rotate({ db }, keyring);
    log(`current key ${await keyring.currentId()}: re-sealed ${resealed} secret(s), ${current} already under it`);
    for (const failure of failed) console.error(`[secrets:rotate] team ${failure.teamId}, secret "${failure.name}" left as it was: ${failure.reason}`);
    unopened = failed.length;
  } finally {
    await db.$disconnect();
    if (embedded?.owned) await embedded.stop();
  }
  if (unopened) throw new Error(`${unopened} secret(s) could not be opened: add their key to PARLEY_SECRET_KEY_PREVIOUS and run again`);
}

main().catch((error: unknown) => {
  console.error("[secrets:rotate]", error instanceof Error ? error.message : error);
  process.exit(1);
});
