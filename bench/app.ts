/**
 * The app as a benchmark runs it: a production build (`.next-bench`, built on first use or
 * with --build) started through the launcher (`npm start`'s scripts/parley.ts), in its own
 * data directory, on a free port, as a separate process; and a user signed up through the
 * real endpoint.
 */
import { type ChildProcess, fork, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { type CpuGroup, cpuGroup, measureByGroup } from "./process-tree";

/**
 * The checkout whose build the bench starts: this one, or PARLEY_BENCH_APP_ROOT's (another
 * clone at an older commit, built there into the same DIST_DIR), so that two builds are
 * measured by the same bench.
 */
export const ROOT = path.resolve(process.env.PARLEY_BENCH_APP_ROOT ?? path.resolve(import.meta.dirname, ".."));
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

/** Remove a tree's control group once its last process (PostgreSQL's, shutting down after the launcher) is gone. */
async function removeWhenEmpty(group: CpuGroup): Promise<void> {
  for (let i = 0; i < 50 && readFileSync(group.procs, "utf8").trim() !== ""; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  group.remove();
}

/** The removal of each app's control group, once the app has exited. */
const groupsRemoved = new WeakMap<ChildProcess, Promise<void>>();

/** Apps this process is stopping: their exit code is expected. */
const stopping = new WeakSet<ChildProcess>();

/**
 * Start the production app on `port` with its data in `dataDir` (and `env` added), building
 * it first when there is no build or --build was given (`build: false`: never, e.g. for a
 * second instance of the build the first just made).
 */
export function startApp(dataDir: string, port: number, env: Record<string, string> = {}, options: { build?: boolean } = {}): ChildProcess {
  const build = options.build ?? (process.argv.includes("--build") || !existsSync(path.join(ROOT, DIST_DIR, "BUILD_ID")));
  log(build ? `Building the app into ${DIST_DIR} and starting it on port ${port} …` : `Starting the app (${DIST_DIR}) on port ${port} …`);
  const command = [path.join(ROOT, "node_modules", ".bin", "tsx"), "scripts/parley.ts", "start", ...(build ? ["--build"] : [])];
  // Where it can, the app's tree runs in a control group of its own, which counts its CPU
  // exactly (process-tree.ts): the launcher joins it before it starts anything.
  const group = cpuGroup("parley-bench");
  const [file, ...args] = group ? ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', group.procs, ...command] : command;
  const app = spawn(file ?? "", args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PARLEY_DATA_DIR: dataDir,
      PARLEY_PROJECT_DIR: path.join(dataDir, "project"),
      PARLEY_DIST_DIR: DIST_DIR,
      PORT: String(port),
      // A bench makes hundreds of sessions in one project, each with its workspace: not the cap of a team's project.
      PARLEY_WORKSPACES_PER_PROJECT: "100000",
      ...env,
    },
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
  if (group) {
    if (app.pid !== undefined) measureByGroup(app.pid, group);
    // Removed once the tree is gone; stopApp waits for it, so a bench exiting right after leaves no group behind.
    groupsRemoved.set(app, new Promise<void>((resolve) => app.once("exit", () => void removeWhenEmpty(group).then(resolve))));
  }
  return app;
}

/** The app on a free port, its model `compatible/<model>` served by a provider on `providerPort` (of this machine). */
export async function startAppWithProvider(dataDir: string, providerPort: number, model: string, env: Record<string, string> = {}): Promise<{ app: ChildProcess; base: string }> {
  const port = await freePort();
  const app = startApp(dataDir, port, {
    OPENAI_BASE_URL: `http://127.0.0.1:${providerPort}/v1`,
    OPENAI_API_KEY: "bench",
    PARLEY_MODEL: `compatible/${model}`,
    PARLEY_SMALL_MODEL: `compatible/${model}`,
    ...env,
  });
  return { app, base: `http://127.0.0.1:${port}` };
}

/** Once the app answers: a new user signed up, their tRPC client and their team's project. */
export async function signedIn(base: string, app: ChildProcess): Promise<{ cookie: string; api: Api; projectId: string }> {
  await waitForServer(base, app, 900_000);
  const { cookie } = await signUp(base);
  const api = new Api(base, cookie);
  return { cookie, api, projectId: await api.projectId() };
}

export async function stopApp(app: ChildProcess): Promise<void> {
  if (app.exitCode === null) {
    stopping.add(app);
    await new Promise<void>((resolve) => {
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
  await groupsRemoved.get(app);
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

/** A child process's next IPC message that has `key` (one with `error` rejects). */
/** A helper program of this folder (`file`, TypeScript run through tsx) in a child process of its own, given `args`. */
export function forkBench(file: string, args: string[] = []): ChildProcess {
  return fork(path.join(import.meta.dirname, file), args, { execArgv: ["--import", "tsx"] });
}

export function next<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Record<string, unknown>) => {
      if ("error" in message) reject(new Error(String(message.error)));
      else if (key in message) resolve(message as T);
      else return;
      child.off("message", onMessage);
    };
    child.on("message", onMessage);
  });
}

/** tRPC over HTTP as the app's browser client sends it, signed in by cookie, against one instance. */
export class Api {
  constructor(
    readonly base: string,
    private readonly cookie: string,
  ) {}

  async call<T>(procedure: string, input: unknown, method: "GET" | "POST"): Promise<T> {
    const url = `${this.base}/api/trpc/${procedure}${method === "GET" ? `?input=${encodeURIComponent(JSON.stringify(input))}` : ""}`;
    const res = await fetch(url, {
      method,
      headers: { cookie: this.cookie, "content-type": "application/json", origin: this.base },
      ...(method === "POST" ? { body: JSON.stringify(input) } : {}),
    });
    const body = (await res.json()) as { result?: { data: T }; error?: unknown };
    if (!res.ok || !body.result) throw new Error(`${procedure}: HTTP ${res.status} ${JSON.stringify(body.error)}`);
    return body.result.data;
  }

  projectId = async () => {
    const projects = await this.call<{ id: string }[]>("project.list", null, "GET");
    const id = projects[0]?.id;
    if (!id) throw new Error("the bench user's team has no project");
    return id;
  };

  /** A new session; with a title, no title is generated for it (no model request besides its answers). */
  createSession = async (projectId: string, title?: string) => (await this.call<{ id: string }>("session.create", { projectId, ...(title ? { title } : {}) }, "POST")).id;

  prompt = (sessionId: string) => this.call("session.prompt", { sessionId, parts: [{ type: "text", text: "stream [bench]" }] }, "POST");

  /** Shares the session; returns the share id (the last part of its /share/<id> link). */
  share = async (sessionId: string) => {
    const info = await this.call<{ share?: { url: string } }>("session.share", { sessionId }, "POST");
    const id = info.share?.url.split("/").pop();
    if (!id) throw new Error(`session ${sessionId} has no share link`);
    return id;
  };
}
