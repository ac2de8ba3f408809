import { type ChildProcess, spawn } from "node:child_process";

import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage, Part, UserMessage } from "../server/session/message";
import { type Runtime, type TestApp, openApp, projectAppEnv, trpcAnswer } from "./app";
import { type Browser, signUp } from "./auth";
import { settled } from "./session-harness";

/**
 * A malicious OpenAI-compatible provider (test/malicious-provider.ts, a process of its
 * own) against the app through its real tRPC Route Handler: a member picks
 * `compatible/<mode>` and prompts. Whatever the provider does, the turn ends with a clear
 * error on the assistant message, the session goes idle, the provider is not asked again,
 * and the server's memory stays bounded (the app runs in this process: its RSS is this
 * process's, sampled every 20 ms during the turn; over 1 GiB the provider is killed and
 * the test fails at once).
 */

const RSS_LIMIT = 1024 ** 3;
/** Short clocks, so the hanging modes end in seconds (the defaults are 10 and 5 minutes). */
/** Long enough that a 64 MiB bomb is read to its limit first even on a busy machine (the limit, not the clock, must stop it). */
const STEP_TIMEOUT_MS = 8_000;
const IDLE_TIMEOUT_MS = 4_000;
/** How long a turn may take here before the test calls it hung. */
const TURN_TIMEOUT_MS = 45_000;

type Page = { messages: { info: AssistantMessage | UserMessage; parts: Part[] }[] };

class Provider {
  private child: ChildProcess | undefined;
  port = 0;

  /** Start it (again on the same port, after a kill). */
  async start(): Promise<void> {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, "malicious-provider.ts"), String(this.port)], { stdio: ["ignore", "pipe", "inherit"] });
    this.child = child;
    this.port = await new Promise<number>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (data: Buffer) => {
        out += data.toString();
        const m = /listening (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once("exit", (code) => reject(new Error(`the malicious provider exited (${code}) before it listened`)));
    });
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  kill(): void {
    if (this.running) this.child?.kill("SIGKILL");
  }

  async requests(model: string): Promise<number> {
    const res = await fetch(`http://127.0.0.1:${this.port}/requests`);
    const counts = (await res.json()) as Record<string, number>;
    return counts[model] ?? 0;
  }
}

describe("N8/N15: a malicious provider fails the turn, never the server (integration, through HTTP, a provider process)", () => {
  const provider = new Provider();
  let app: TestApp;
  let rt: Runtime;
  let ann: Browser;
  let projectId: string;

  async function ok<T>(procedure: string, input: unknown): Promise<T> {
    const res = await trpcAnswer<T>(app, procedure, input, ann.headers);
    expect(res.status, `${procedure}: ${res.message}`).toBe(200);
    return res.data;
  }

  beforeAll(async () => {
    await provider.start();
    app = await openApp("provider-limits", (dir) =>
      projectAppEnv(dir, {
        PARLEY_SIGNUP: "invite",
        OPENAI_BASE_URL: `http://127.0.0.1:${provider.port}/v1`,
        // `openai/<mode>` goes to the same provider, through the Responses API and the AI SDK's own parser.
        OPENAI_API_KEY: "sk-malicious-provider-test",
        PARLEY_MODEL: "offline/parley-offline",
        PARLEY_SMALL_MODEL: "offline/parley-offline",
        PARLEY_OFFLINE_TPS: "0",
        // A broken limit must not be retried: with retries allowed, a second request would show.
        PARLEY_RETRY_MAX_ATTEMPTS: "3",
        PARLEY_PROVIDER_STEP_TIMEOUT_MS: String(STEP_TIMEOUT_MS),
        PARLEY_PROVIDER_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      }),
    );
    rt = app.rt;
    const auth = await (await import("../server/auth/instance")).getAuth();
    ann = await signUp(auth, "ann@provider-limits.test", "Ann");
    const [first] = await ok<{ id: string }[]>("project.list", undefined);
    projectId = first!.id;
  }, 60_000);

  afterAll(async () => {
    provider.kill();
    await app?.close();
  });

  /**
   * A prompt to `compatible/<mode>` through tRPC, until the session is idle again; the
   * highest RSS seen meanwhile. Over 1 GiB the provider is killed (its stream ends) and the
   * turn fails the test.
   */
  async function turn(mode: string, providerId = "compatible") {
    const session = await ok<{ id: string }>("session.create", { projectId, title: `Provider mode ${mode}` });
    let peak = process.memoryUsage.rss();
    let over: ((error: Error) => void) | undefined;
    const overrun = new Promise<never>((_, reject) => (over = reject));
    const sampler = setInterval(() => {
      const rss = process.memoryUsage.rss();
      peak = Math.max(peak, rss);
      if (rss > RSS_LIMIT) {
        provider.kill();
        over?.(new Error(`${mode}: the server's RSS reached ${Math.round(rss / 1024 ** 2)} MB`));
      }
    }, 20);
    let hung: ReturnType<typeof setTimeout> | undefined;
    const hang = new Promise<never>((_, reject) => {
      hung = setTimeout(() => {
        provider.kill();
        reject(new Error(`${mode}: the turn was still running after ${TURN_TIMEOUT_MS / 1000} s`));
      }, TURN_TIMEOUT_MS);
    });
    try {
      await ok("session.prompt", { sessionId: session.id, parts: [{ type: "text", text: `hello ${mode}` }], model: { providerId, modelId: mode } });
      await Promise.race([settled(rt.services, session.id, TURN_TIMEOUT_MS + 5_000), overrun, hang]);
    } finally {
      clearInterval(sampler);
      clearTimeout(hung);
    }
    const info = await ok<{ status?: { type: string } }>("session.get", { sessionId: session.id });
    const page = await ok<Page>("message.page", { sessionId: session.id });
    const replies = page.messages.filter((m): m is { info: AssistantMessage; parts: Part[] } => m.info.role === "assistant");
    return { peak, status: info.status?.type, replies, requests: await provider.requests(mode) };
  }

  /** The one reply's error, after checking what every mode must show. */
  async function failedTurn(mode: string, providerId = "compatible"): Promise<string> {
    if (!provider.running) await provider.start();
    const before = await provider.requests(mode);
    const result = await turn(mode, providerId);
    expect(result.peak).toBeLessThan(RSS_LIMIT);
    expect(result.status ?? "idle").toBe("idle");
    expect(result.replies).toHaveLength(1);
    const reply = result.replies[0]!;
    expect(reply.info.time.completed).toBeDefined();
    // No part holds more than the part limit (4 MiB by default).
    for (const part of reply.parts) if (part.type === "text" || part.type === "reasoning") expect(part.text.length).toBeLessThanOrEqual(4 * 1024 * 1024);
    // Not retried: a provider that broke a limit is not asked again.
    expect(result.requests - before).toBe(1);
    return reply.info.error && "message" in reply.info.error ? (reply.info.error.message ?? "") : "";
  }

  it("N8: an endless line without a newline fails the turn at the event limit", { timeout: 90_000 }, async () => {
    expect(await failedTurn("endless-line")).toMatch(/event or line longer than 4194304 characters \(provider\.maxEventChars: 4194304\)/);
  });

  it("N8: endless chunks with empty choices before any output fail the turn at the limit before output", { timeout: 90_000 }, async () => {
    expect(await failedTurn("empty-choices")).toMatch(/more than 8388608 bytes without any output \(provider\.maxBytesBeforeOutput/);
  });

  it("N8: a 302 to another origin serving a gzip bomb is refused, not followed", { timeout: 90_000 }, async () => {
    expect(await failedTurn("redirect-bomb")).toMatch(/redirected to another origin \(HTTP 302 to http:\/\/localhost:\d+\)/);
  });

  it("N8: a gzip bomb from the provider's own origin is never decompressed", { timeout: 90_000 }, async () => {
    expect(await failedTurn("gzip-bomb")).toMatch(/compressed body \(content-encoding: gzip\), which is not accepted/);
  });

  it("N8: one 200 MB content delta is refused at the event limit, not stored as a part", { timeout: 90_000 }, async () => {
    expect(await failedTurn("huge-delta")).toMatch(/provider\.maxEventChars/);
  });

  it("N8: a text part that never stops growing is stopped at the part limit", { timeout: 90_000 }, async () => {
    expect(await failedTurn("endless-text")).toMatch(/a text part longer than 4194304 characters \(provider\.maxPartChars/);
  });

  it("N15: a provider that only drips `: keepalive` fails the turn at the idle limit", { timeout: 90_000 }, async () => {
    expect(await failedTurn("keepalive")).toMatch(/sent no output for 4 s \(provider\.idleTimeoutMs: 4000\)/);
  });

  it("N15: `: keepalive` after some output is not progress either", { timeout: 90_000 }, async () => {
    expect(await failedTurn("keepalive-after-text")).toMatch(/sent no output for 4 s \(provider\.idleTimeoutMs/);
  });

  it("N15: an answer that never ends fails the turn at the step's wall-clock limit", { timeout: 90_000 }, async () => {
    expect(await failedTurn("slow-text")).toMatch(/did not finish its answer within 8 s \(provider\.stepTimeoutMs: 8000\)/);
  });

  it("D8: a retry-after date millennia away waits at most 10 minutes instead of firing at once", { timeout: 60_000 }, async () => {
    if (!provider.running) await provider.start();
    const before = await provider.requests("retry-far-future");
    const session = await ok<{ id: string }>("session.create", { projectId, title: "Provider mode retry-far-future" });
    await ok("session.prompt", { sessionId: session.id, parts: [{ type: "text", text: "hello" }], model: { providerId: "compatible", modelId: "retry-far-future" } });
    type Retry = { type: "retry"; attempt: number; message: string; next: number };
    const isRetry = (s: { type: string } | Retry | undefined): s is Retry => s?.type === "retry";
    let status: { type: string } | Retry | undefined;
    const end = Date.now() + 20_000;
    while (!isRetry(status) && Date.now() < end) {
      status = (await ok<{ status?: { type: string } | Retry }>("session.get", { sessionId: session.id })).status;
      if (!isRetry(status)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (!isRetry(status)) throw new Error(`the session never waited to retry (status ${status?.type})`);
    const wait = status.next - Date.now();
    // Clamped to the 10-minute cap: neither the year 9999 nor at once.
    expect(wait).toBeGreaterThan(9 * 60_000);
    expect(wait).toBeLessThanOrEqual(10 * 60_000);
    // A timer that overflowed would have fired at once and asked the provider again.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await provider.requests("retry-far-future")) - before).toBe(1);
    await ok("session.abort", { sessionId: session.id });
    await settled(rt.services, session.id, 15_000);
    const info = await ok<{ status?: { type: string } }>("session.get", { sessionId: session.id });
    expect(info.status?.type ?? "idle").toBe("idle");
  });

  describe("the openai/ path (the Responses API, read by the AI SDK)", () => {
    it("N8: an endless line fails the turn at the event limit", { timeout: 90_000 }, async () => {
      expect(await failedTurn("endless-line", "openai")).toMatch(/provider\.maxEventChars: 4194304/);
    });

    it("N8: a 302 to another origin is refused", { timeout: 90_000 }, async () => {
      expect(await failedTurn("redirect-bomb", "openai")).toMatch(/redirected to another origin \(HTTP 302 to http:\/\/localhost:\d+\)/);
    });

    it("N8: a gzip bomb is decompressed only up to the limits", { timeout: 90_000 }, async () => {
      expect(await failedTurn("gzip-bomb", "openai")).toMatch(/provider\.(maxEventChars|maxAnswerBytes)/);
    });

    it("N8: one 200 MB delta fails the turn at the event limit", { timeout: 90_000 }, async () => {
      expect(await failedTurn("huge-delta", "openai")).toMatch(/provider\.maxEventChars/);
    });

    it("N15: a `: keepalive` drip fails the turn at the idle limit", { timeout: 90_000 }, async () => {
      expect(await failedTurn("keepalive", "openai")).toMatch(/provider\.idleTimeoutMs: 4000/);
    });
  });

  it("the server still answers other prompts afterwards (the offline model)", { timeout: 60_000 }, async () => {
    const session = await ok<{ id: string }>("session.create", { projectId, title: "After the attacks" });
    await ok("session.prompt", { sessionId: session.id, parts: [{ type: "text", text: "hello" }] });
    await settled(rt.services, session.id, 30_000);
    const page = await ok<Page>("message.page", { sessionId: session.id });
    const reply = page.messages.find((m) => m.info.role === "assistant");
    expect(reply?.info.role === "assistant" && reply.info.error).toBeFalsy();
  });
});
