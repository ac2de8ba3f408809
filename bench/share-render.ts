/**
 * The share page's server-side render, measured two ways for bench/dashboard.ts:
 *
 * - in process: what app/share/[shareId]/page.tsx does for a request — `ShareView.page`
 *   (resolve the link, newest page of messages with their parts, child sessions) — then
 *   the props serialized as the React Server Components payload carries them (JSON),
 *   then the page's component tree (`ShareViewer` in the app's providers) rendered to
 *   HTML by React. Next's own routing, Flight encoding and layout are not included.
 * - over HTTP: GET /share/<id> from the real production server (`next start` on the
 *   bench's database), when a production build exists (PARLEY_DIST_DIR, else .next):
 *   time to the first byte and to the whole HTML. This is the number that counts; the
 *   in-process one shows where the time goes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire, register } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { ShareView } from "../server/share";
import { freePort } from "./app";
import { cpuMs as treeCpuMs } from "./process-tree";

const ROOT = path.resolve(import.meta.dirname, "..");

/** Components import their CSS (Next bundles it); Node cannot, so .css modules load as empty here. */
let cssStubbed = false;
function stubCss(): void {
  if (cssStubbed) return;
  cssStubbed = true;
  const hook = `export async function load(url, context, next) {
    if (url.endsWith(".css")) return { format: "module", source: "", shortCircuit: true };
    return next(url, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}

export type Renderer = (shareId: string) => Promise<{ html: string; payloadBytes: number }>;

/** The page's data loading + payload serialization + React render, as one function to time. */
export async function inProcessRenderer(reader: ShareView.ShareReader, limit: number): Promise<Renderer> {
  stubCss();
  // React as `next start` runs it: the production build (chosen when React is first loaded).
  if (process.env.NODE_ENV !== "production") Object.assign(process.env, { NODE_ENV: "production" });
  const [{ createElement }, { renderToString }, { ShareContent }, { sharedLanguages }, { loadLanguages }] = await Promise.all([
    import("react"),
    import("react-dom/server"),
    import("../components/share/share-view"),
    import("../components/share/shared-markdown"),
    import("../lib/highlight"),
  ]);
  return async (shareId) => {
    const page = await ShareView.page(reader, { shareId, limit });
    const payload = JSON.stringify(page);
    await loadLanguages(sharedLanguages(page.messages.messages));
    const html = renderToString(createElement(ShareContent, { key: page.session.id, page, olderHref: undefined }));
    return { html, payloadBytes: Buffer.byteLength(payload) };
  };
}

export interface HttpServer {
  baseUrl: string;
  distDir: string;
  /** CPU time used so far by the server's processes (ms), where /proc tells it; undefined elsewhere. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** `next start` of the existing production build on `databaseUrl`, or undefined (with the reason) when there is no build. */
export async function startProductionServer(databaseUrl: string, dataDir: string): Promise<HttpServer | string> {
  const distDir = process.env.PARLEY_DIST_DIR ?? ".next";
  if (!existsSync(path.join(ROOT, distDir, "BUILD_ID"))) return `no production build in ${distDir}/ (run \`npm run build\`, or set PARLEY_DIST_DIR)`;
  const port = await freePort();
  const next = createRequire(import.meta.url).resolve("next/dist/bin/next");
  let output = "";
  const child: ChildProcess = spawn(process.execPath, [next, "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PARLEY_DATA_DIR: dataDir, PARLEY_DIST_DIR: distDir, NODE_ENV: "production" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${output}`);
    try {
      await fetch(`${baseUrl}/share/none`);
      return { baseUrl, distDir, stop, cpuMs: () => (child.pid === undefined || !existsSync("/proc") ? undefined : treeCpuMs(child.pid)) };
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`next start did not answer within 60 s:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** One GET: time to the response headers (first byte) and to the whole body. */
export async function fetchTimed(url: string): Promise<{ status: number; ttfb: number; total: number; html: string }> {
  const t0 = performance.now();
  const response = await fetch(url);
  const ttfb = performance.now() - t0;
  const html = await response.text();
  return { status: response.status, ttfb, total: performance.now() - t0, html };
}
