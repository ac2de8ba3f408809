import { startEmbeddedDatabase } from "../../server/db/embedded";
import { RunLock } from "../../server/session/lock";
import { E2E_DATA_DIR } from "./seed";

/**
 * Run locks held from the test process, as a runner on another instance holds them.
 * A session seeded as busy or retrying with no runner is, to the server, one a crash
 * left behind, and its periodic recovery sets it idle; holding the session's lock says
 * "running elsewhere", so the seeded status stays. Close to release them all.
 */
export async function runLocks(): Promise<RunLock> {
  let url = process.env.DATABASE_URL;
  if (!url) {
    const embedded = await startEmbeddedDatabase({ dataDir: E2E_DATA_DIR });
    if (embedded.owned) {
      await embedded.stop();
      throw new Error(`no PostgreSQL is running in ${E2E_DATA_DIR}: is the e2e web server up?`);
    }
    url = embedded.url;
  }
  return new RunLock(url);
}
