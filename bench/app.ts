/**
 * The app as a benchmark runs it: a production build (`.next-bench`, built on first use or
 * with --build) started through the launcher (`npm start`'s scripts/parley.ts), in its own
 * data directory, on a free port, as a separate process; and a user signed up through the
 * real endpoint.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..");
export const DIST_DIR = process.env.PARLEY_DIST_DIR ?? ".next-bench";

const log = (line: string) => process.stdout.write(`${line}\n`);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function waitForServer(url: string, app: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (app.exitCode !== null) throw new Error(`the app exited with code ${app.exitCode} before it was ready`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the app did not answer at ${url} within ${timeoutMs / 1000} s`);
}

/** Apps this process is stopping: their exit code is expected. */
const stopping = new WeakSet<ChildProcess>();

/** Start the production app on `port` with its data in `dataDir` (and `env` added). */
export function startApp(dataDir: string, port: number, env: Record<string, string> = {}): ChildProcess {
  const build = process.argv.includes("--build") || !existsSync(path.join(ROOT, DIST_DIR, "BUILD_ID"));
  log(build ? `Building the app into ${DIST_DIR} and starting it on port ${port} …` : `Starting the app (${DIST_DIR}) on port ${port} …`);
  const app = spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), ["scripts/parley.ts", "start", ...(build ? ["--build"] : [])], {
    cwd: ROOT,
    env: { ...process.env, PARLEY_DATA_DIR: dataDir, PARLEY_PROJECT_DIR: path.join(dataDir, "project"), PARLEY_DIST_DIR: DIST_DIR, PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString());
    if (output.length > 200) output.shift();
  };
  app.stdout?.on("data", keep);
  app.stderr?.on("data", keep);
  app.on("exit", (code) => {
    if (code && !stopping.has(app)) process.stderr.write(`[bench] the app exited with code ${code}; its last output:\n${output.join("")}\n`);
  });
  return app;
}

export function stopApp(app: ChildProcess): Promise<void> {
  if (app.exitCode !== null) return Promise.resolve();
  stopping.add(app);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      app.kill("SIGKILL");
      resolve();
    }, 20_000);
    app.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    app.kill("SIGTERM");
  });
}

/** Sign a new user up through the app; returns the user's id and the session cookie. */
export async function signUp(baseURL: string, name = "Bench"): Promise<{ userId: string; cookie: string }> {
  const email = `bench-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}@bench.parley.test`;
  const res = await fetch(`${baseURL}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseURL },
    body: JSON.stringify({ email, name, password: "bench password 1234" }),
  });
  if (!res.ok) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  const userId = ((await res.json()) as { user: { id: string } }).user.id;
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { userId, cookie };
}
