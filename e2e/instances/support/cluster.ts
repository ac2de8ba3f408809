import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext } from "@playwright/test";
import { type Db, createDb } from "../../../server/db/client";
import { applyMigrations } from "../../../server/db/migrate";
import { Api, signUp } from "./api";
import type { Postgres } from "./postgres";
import { type InstanceName, ScriptedModel } from "./provider";

/**
 * Two Parley servers on one PostgreSQL, as production runs them: each started through the
 * launcher (`npm start`'s scripts/parley.ts, which runs `next start` on the production
 * build in PARLEY_DIST_DIR) with DATABASE_URL, in a process group of its own so that a
 * test can kill one outright (kill -9 of the whole group: launcher, Next.js, the tools it
 * runs). Both use the same data and project directories and the scripted model
 * (provider.ts). One user is signed up; its cookie works on both (shared sign-ins).
 */

export const ROOT = path.resolve(import.meta.dirname, "../../..");
export const DIST_DIR = process.env.PARLEY_DIST_DIR ?? ".next";
const READY_TIMEOUT_MS = 120_000;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** When (ms since the epoch). */
  at: number;
}

export interface InstanceOptions {
  name: InstanceName;
  port: number;
  env: Record<string, string>;
  logFile: string;
}

export class Instance {
  private process: ChildProcess | undefined;
  private exit: Promise<Exit> = Promise.resolve({ code: null, signal: null, at: 0 });
  readonly name: InstanceName;
  readonly url: string;

  constructor(private readonly options: InstanceOptions) {
    this.name = options.name;
    this.url = `http://127.0.0.1:${options.port}`;
  }

  get running(): boolean {
    return this.process !== undefined && this.process.exitCode === null && this.process.signalCode === null;
  }

  /** The launcher's pid (the process group's too). */
  get pid(): number {
    const pid = this.process?.pid;
    if (pid === undefined) throw new Error(`instance ${this.name} is not running`);
    return pid;
  }

  /** Start the launcher (with `env` added for this run) and wait until /api/health says ok. */
  async start(env: Record<string, string> = {}): Promise<void> {
    if (this.running) throw new Error(`instance ${this.name} is already running`);
    const log = createWriteStream(this.options.logFile, { flags: "a" });
    log.write(`\n---- start ${new Date().toISOString()} ${JSON.stringify(env)}\n`);
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/parley.ts", "start"], {
      cwd: ROOT,
      env: { ...process.env, ...this.options.env, ...env, PORT: String(this.options.port), HOST: "127.0.0.1", PARLEY_DIST_DIR: DIST_DIR },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    this.process = child;
    this.exit = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal, at: Date.now() })));
    killOnExit.add(this);
    await this.ready();
  }

  private async ready(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (!this.running) throw new Error(`instance ${this.name} exited before it was ready (see ${this.options.logFile})`);
      try {
        const res = await fetch(`${this.url}/api/health`);
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`instance ${this.name} was not healthy within ${READY_TIMEOUT_MS / 1000} s (see ${this.options.logFile})`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** kill -9 of the whole instance (launcher, server, whatever its tools run); resolves once it is gone. */
  async kill9(): Promise<void> {
    if (!this.running) return;
    process.kill(-this.pid, "SIGKILL");
    await this.exit;
  }

  /** SIGTERM to the launcher, as a process manager sends it. */
  terminate(): void {
    process.kill(this.pid, "SIGTERM");
  }

  /** How the launcher ended, and when. */
  exited(): Promise<Exit> {
    return this.exit;
  }

  /** The last `lines` lines the instance printed (over all its runs). */
  log(lines: number): string {
    return existsSync(this.options.logFile) ? readFileSync(this.options.logFile, "utf8").split("\n").slice(-lines).join("\n") : "";
  }

  /** What /api/health answers now (status and body). */
  async health(): Promise<{ status: number; body: { status: string; checks: Record<string, { ok: boolean; error?: string }> } }> {
    const res = await fetch(`${this.url}/api/health`);
    return { status: res.status, body: (await res.json()) as { status: string; checks: Record<string, { ok: boolean; error?: string }> } };
  }
}

/** Instances are killed with the worker, whatever ends it. */
const killOnExit = new Set<Instance>();
process.on("exit", () => {
  for (const instance of killOnExit) {
    if (!instance.running) continue;
    try {
      process.kill(-instance.pid, "SIGKILL");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
});

export interface ClusterPorts {
  a: number;
  b: number;
  postgres: number;
}

export class Cluster {
  readonly a: Instance;
  readonly b: Instance;
  private constructor(
    readonly pg: Postgres,
    readonly model: ScriptedModel,
    readonly dir: string,
    ports: ClusterPorts,
    readonly db: Db,
  ) {
    const env: Record<string, string> = {
      DATABASE_URL: pg.url,
      PARLEY_DATA_DIR: path.join(dir, "data"),
      PARLEY_PROJECT_DIR: path.join(dir, "project"),
      OPENAI_BASE_URL: model.baseUrl,
      PARLEY_MODEL: "compatible/fake",
      PARLEY_SMALL_MODEL: "compatible/fake",
      PARLEY_SIGNUP: "open",
      PARLEY_AUTH_RATE_LIMIT: "false",
      // A failed model call fails the turn at once (no retry waits in these tests).
      PARLEY_RETRY_MAX_ATTEMPTS: "1",
      PARLEY_COMPACTION_PRUNE: "false",
    };
    this.a = new Instance({ name: "a", port: ports.a, env: { ...env, OPENAI_API_KEY: "instance-a" }, logFile: path.join(dir, "a.log") });
    this.b = new Instance({ name: "b", port: ports.b, env: { ...env, OPENAI_API_KEY: "instance-b" }, logFile: path.join(dir, "b.log") });
  }

  cookie = "";
  projectId = "";

  /** A fresh directory, the database migrated, the model, both instances up and a user signed up. */
  static async start(pg: Postgres, dir: string, ports: ClusterPorts): Promise<Cluster> {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.join(dir, "project"), { recursive: true });
    await applyMigrations(pg.url);
    const model = await ScriptedModel.start();
    const cluster = new Cluster(pg, model, dir, ports, createDb(pg.url, { max: 4 }));
    await Promise.all([cluster.a.start(), cluster.b.start()]);
    cluster.cookie = await signUp(cluster.a.url);
    cluster.projectId = await cluster.api("a").projectId();
    return cluster;
  }

  instance(name: InstanceName): Instance {
    return name === "a" ? this.a : this.b;
  }

  api(name: InstanceName): Api {
    return new Api(this.instance(name).url, this.cookie);
  }

  /** A session made through `on`, its prompts tagged for the scripted model. */
  async session(on: InstanceName, title: string): Promise<{ id: string; tag: string }> {
    const tag = this.model.tag();
    return { id: await this.api(on).session(this.projectId, `${title} ${tag}`), tag };
  }

  /** A file in the project both instances serve. */
  writeProjectFile(name: string, content: string): void {
    const project = path.join(this.dir, "project");
    writeFileSync(path.join(project, name), content);
    // Sessions start from the project's default branch: once an earlier session made the
    // folder a repository, a new file reaches new sessions by a commit, as a team's would.
    if (existsSync(path.join(project, ".git"))) {
      const git = (...args: string[]) => execFileSync("git", ["-c", "safe.directory=*", "-c", "user.name=Test", "-c", "user.email=test@parley.test", ...args], { cwd: project, stdio: "ignore" });
      git("add", "-f", "--", name);
      git("commit", "-q", "--no-verify", "-m", `Add ${name}`);
    }
  }

  /** A browser context on an instance, signed in as the cluster's user (or anonymous). */
  async browser(browser: Browser, on: InstanceName, options: { signedIn?: boolean } = {}): Promise<BrowserContext> {
    const context = await browser.newContext({ baseURL: this.instance(on).url });
    if (options.signedIn !== false) {
      await context.addCookies(
        this.cookie.split("; ").map((pair) => {
          const at = pair.indexOf("=");
          return { name: pair.slice(0, at), value: pair.slice(at + 1), domain: "127.0.0.1", path: "/" };
        }),
      );
    }
    return context;
  }

  /** Both instances up again after a test stopped one. */
  async ensureUp(): Promise<void> {
    await Promise.all([this.a, this.b].filter((i) => !i.running).map((i) => i.start()));
  }

  async close(): Promise<void> {
    for (const instance of [this.a, this.b]) await instance.kill9();
    await this.db.$disconnect();
    await this.model.close();
  }
}
