import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Envelope } from "../server/bus/bus";
import { appRouter } from "../server/trpc/router";
import { type OwnDatabase, ownDatabase } from "./db";

/**
 * The app as the server runs it, inside a test file: a database of its own (the process
 * runtime recovers and sweeps every session of its database at boot, so it must not see
 * other files' sessions), a temporary folder, the environment the Route Handlers read
 * their configuration from, and the process runtime. `close()` undoes all of it.
 */

export type Runtime = Awaited<ReturnType<typeof import("../server/runtime")["runtime"]>>;
/** The Route Handler modules and the auth instance, as app tests import them. */
export type TrpcRoute = typeof import("../app/api/trpc/[trpc]/route");
export type SessionEvents = typeof import("../app/api/sessions/[sessionId]/events/route");
export type TeamEvents = typeof import("../app/api/teams/[teamId]/events/route");
export type ShareEvents = typeof import("../app/api/share/[shareId]/events/route");
export type Auth = Awaited<ReturnType<typeof import("../server/auth/instance")["getAuth"]>>;
type Procedures = Record<string, { _def: { type: "query" | "mutation" | "subscription" } }>;
const procedures = (appRouter._def as unknown as { procedures: Procedures }).procedures;

export interface TestApp {
  /** The temporary folder (data directory, projects…). */
  dir: string;
  rt: Runtime;
  /** A tRPC call through the real Route Handler, as a browser makes it. */
  call(procedure: string, input: unknown, headers: Headers): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

export async function openApp(label: string, env: (dir: string) => Record<string, string>): Promise<TestApp> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `parley-${label}-`));
  let own: OwnDatabase | undefined;
  const values = { ...env(dir) };
  const saved = new Map<string, string | undefined>();
  const restore = () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  try {
    own = await ownDatabase(label.replace(/\W/g, "_"));
    values.DATABASE_URL = own.url;
    for (const [name, value] of Object.entries(values)) {
      saved.set(name, process.env[name]);
      process.env[name] = value;
    }
    const trpc: TrpcRoute = await import("../app/api/trpc/[trpc]/route");
    const rt = await (await import("../server/runtime")).runtime();
    const database = own;
    return {
      dir,
      rt,
      call: (procedure, input, headers) => trpcCall(trpc, procedure, input, headers),
      async close() {
        // Spare trees being checked out in the background (server/workspace/spare.ts) end before their folder goes.
        await rt.services.workspaces.spares.settled();
        await rt.bridge.close();
        await rt.services.lock.close();
        await rt.services.db.$disconnect();
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
        restore();
      },
    };
  } catch (error) {
    await own?.drop();
    rmSync(dir, { recursive: true, force: true });
    restore();
    throw error;
  }
}

async function trpcCall(trpc: TrpcRoute, procedure: string, input: unknown, headers: Headers) {
  const type = procedures[procedure]?._def.type;
  if (!type) throw new Error(`no procedure ${procedure}`);
  const base = `http://parley.test/api/trpc/${procedure}`;
  const req =
    type === "query"
      ? new Request(input === undefined ? base : `${base}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers })
      : new Request(base, { method: "POST", headers: new Headers([...headers, ["content-type", "application/json"]]), body: JSON.stringify(input ?? null) });
  const res = await (type === "query" ? trpc.GET(req) : trpc.POST(req));
  return { status: res.status, text: await res.text() };
}

/** A tRPC call's answer as a test reads it: the status, the data, the error's message and the raw text. */
export interface TrpcAnswer<T> {
  status: number;
  data: T;
  message: string;
  text: string;
}

/** A tRPC call through the app's Route Handler with `headers` (a browser's sign-in, or none), parsed. */
export async function trpcAnswer<T>(app: TestApp, procedure: string, input: unknown, headers: Headers): Promise<TrpcAnswer<T>> {
  const res = await app.call(procedure, input, headers);
  const body = JSON.parse(res.text) as { result?: { data: T }; error?: { message: string } };
  return { status: res.status, data: body.result?.data as T, message: body.error?.message ?? "", text: res.text };
}

/** A tRPC call that must succeed: its data (anything but a 200 throws, naming the procedure and the error). */
export async function trpcData<T>(app: TestApp, procedure: string, input: unknown, headers: Headers): Promise<T> {
  const answer = await trpcAnswer<T>(app, procedure, input, headers);
  if (answer.status !== 200) throw new Error(`${procedure}: HTTP ${answer.status} ${answer.message}`);
  return answer.data;
}

/** The procedures of the router, with their kind. */
export function allProcedures(): Procedures {
  return procedures;
}

const LATE = Symbol("late");

/** `wait`'s value, or an error naming `what` when it has not settled within `ms`. */
export async function within<T>(what: string, wait: Promise<T>, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), ms)));
  try {
    const value = await Promise.race([wait, late]);
    if (value === LATE) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    return value;
  } finally {
    clearTimeout(timer);
  }
}

/** Until `read` gives a value (polled every 50 ms); throws, naming `what`, after `ms`. */
export async function until<T>(what: string, read: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    // A read that does not return by the deadline fails the wait too, saying so.
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), Math.max(1_000, end - Date.now()))));
    const value = await Promise.race([read(), late]);
    clearTimeout(timer);
    if (value === LATE) throw new Error(`timed out waiting for ${what}: a read of it did not return`);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The usual environment of an app test in `dir`: the data directory `data`, the sample
 * project's folder `projects/app` (made here), the projects root `projects`; `extra` on
 * top (sign-up, a fake provider, limits…).
 */
export function projectAppEnv(dir: string, extra: Record<string, string>): Record<string, string> {
  mkdirSync(path.join(dir, "projects", "app"), { recursive: true });
  return {
    PARLEY_DATA_DIR: path.join(dir, "data"),
    PARLEY_PROJECT_DIR: path.join(dir, "projects", "app"),
    PARLEY_PROJECTS_ROOT: path.join(dir, "projects"),
    ...extra,
  };
}

/** tRPC calls as a signed-in browser `who`, through the app `app()` gives: `call` gives the answer, `ok` the data of a call that must succeed. */
export function memberCalls(app: () => TestApp) {
  return {
    call: <T>(procedure: string, input: unknown, who: { headers: Headers }) => trpcAnswer<T>(app(), procedure, input, who.headers),
    ok: <T>(procedure: string, input: unknown, who: { headers: Headers }) => trpcData<T>(app(), procedure, input, who.headers),
  };
}

/**
 * Where a secret could leak while a file runs, for it to grep: `events` (its bus's, once
 * the file subscribes), `logged` (console lines, once it captures them) and `responses`,
 * the raw answer of every tRPC call made through `call` (as `who`, through the app `app()` gives).
 */
export function leakWatch(app: () => TestApp) {
  const events: Envelope[] = [];
  const logged: string[] = [];
  const responses: string[] = [];
  const call = async <T>(procedure: string, input: unknown, who: { headers: Headers }): Promise<TrpcAnswer<T>> => {
    const answer = await trpcAnswer<T>(app(), procedure, input, who.headers);
    responses.push(answer.text);
    return answer;
  };
  return { events, logged, responses, call };
}
