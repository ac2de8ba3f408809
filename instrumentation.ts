/**
 * Runs once when the Next.js server starts. Under the launcher (`npm start`), which sets
 * NEXT_MANUAL_SIG_HANDLE so that Next.js leaves SIGTERM and SIGINT alone, Parley takes
 * them over: the instance drains before it exits (server/shutdown.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_MANUAL_SIG_HANDLE !== "true") return;
  const { handleSignals } = await import("./server/shutdown");
  handleSignals();
}
