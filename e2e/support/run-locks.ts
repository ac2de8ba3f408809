import { RunLock } from "../../server/session/lock";
import { e2eDatabaseUrl } from "./seed";

/**
 * Run locks held from the test process, as a runner on another instance holds them.
 * A session seeded as busy or retrying with no runner is, to the server, one a crash
 * left behind, and its periodic recovery sets it idle; holding the session's lock says
 * "running elsewhere", so the seeded status stays. Close to release them all.
 */
export async function runLocks(): Promise<RunLock> {
  return new RunLock(await e2eDatabaseUrl());
}
