import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { E2E_DATA_DIR, e2eDatabaseUrl } from "./seed";

/**
 * A second Parley instance on the e2e server's database, with its own settings (say, sign-up
 * by invitation only): the same build (PARLEY_DIST_DIR), started by the launcher without
 * building. Several instances on one PostgreSQL is a supported setup (README, Scale).
 */
export interface Instance {
  baseURL: string;
  stop(): Promise<void>;
}

const ROOT = path.resolve(import.meta.dirname, "..", "..");

async function ready(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the second instance exited with code ${child.exitCode}`);
    const answered = await fetch(url, { redirect: "manual" }).then(
      (res) => res.status < 500,
      (error: unknown) => {
        // Not listening yet: try again shortly.
        if (error instanceof TypeError) return false;
        throw error;
      },
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the second instance did not answer at ${url} within ${timeoutMs} ms`);
}

export async function startInstance(port: number, env: Record<string, string>): Promise<Instance> {
  const baseURL = `http://127.0.0.1:${port}`;
  const output: string[] = [];
  const child = spawn(process.execPath, [path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), "scripts/parley.ts", "start"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: await e2eDatabaseUrl(),
      PARLEY_DATA_DIR: E2E_DATA_DIR,
      PARLEY_PROJECT_DIR: `${E2E_DATA_DIR}/project`,
      PARLEY_AUTH_RATE_LIMIT: "false",
      PORT: String(port),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
  };
  try {
    await ready(`${baseURL}/sign-in`, child, 90_000);
  } catch (error) {
    await stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${output.join("").slice(-4000)}`, { cause: error });
  }
  return { baseURL, stop };
}
