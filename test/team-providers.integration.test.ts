import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Overview, TestResult } from "../server/provider/admin";
import type { Info } from "../server/session/info";
import type { UserMessage, WithParts } from "../server/session/message";
import { type TestApp, leakWatch, openApp, projectAppEnv, type Auth } from "./app";
import { type Browser, joinTeam, signUp } from "./auth";
import { captureConsole } from "./console";
import { anthropicReply, startFakeAnthropic } from "./fake-anthropic";
import type { FakeProvider } from "./fake-provider";
import { settled } from "./session-harness";

/**
 * Acceptance 2 of issue 35, through the real tRPC Route Handler with real sign-in cookies:
 * each team's provider key (a team secret) is the one its sessions' requests carry — the
 * fake Anthropic server records it — and the operator's environment key is not offered
 * (`serverKeys: none`); a member of team B can neither read, use nor see A's key; the key
 * test makes one call and reports it; no key appears in any event, log line, response,
 * share page or stored error.
 */

const KEY_A = `sk-ant-a-${randomBytes(16).toString("hex")}`;
const KEY_B = `sk-ant-b-${randomBytes(16).toString("hex")}`;
const WRONG_B = `sk-ant-wrong-${randomBytes(16).toString("hex")}`;
const SERVER_KEY = `sk-ant-server-${randomBytes(16).toString("hex")}`;
const MODEL = "anthropic/claude-haiku-4-5";

/** The requests of turns (not of titles). */
function turnsOf(requests: FakeProvider["requests"]): FakeProvider["requests"] {
  return requests.filter((r) => !JSON.stringify(r.body.system ?? "").includes("short title"));
}

describe("provider keys per team (integration, through HTTP)", () => {
  let app: TestApp;
  let fake: FakeProvider;
  let ann: Browser;
  let bob: Browser;
  let zed: Browser;
  let projectA: string;
  let projectB: string;
  const { events, logged, responses, call } = leakWatch(() => app);
  let stopBus: () => void;
  const ok = async <T>(procedure: string, input: unknown, who: Browser): Promise<T> => {
    const answer = await call<T>(procedure, input, who);
    expect(answer.status, `${procedure}: ${answer.message}`).toBe(200);
    return answer.data;
  };

  /** A prompt in a new session of `who`'s, answered by the fake; the key its request carried and the answer. */
  async function ask(who: Browser, projectId: string, text: string) {
    const session = await ok<Info>("session.create", { projectId, title: text }, who);
    const before = fake.requests.length;
    fake.reset();
    fake.enqueue(anthropicReply.text(`answer to ${text}`));
    await ok<UserMessage>("session.prompt", { sessionId: session.id, parts: [{ type: "text", text }] }, who);
    await settled(app.rt.services, session.id, 20_000);
    const page = await ok<{ messages: WithParts[] }>("message.page", { sessionId: session.id, limit: 50 }, who);
    return { session, keys: turnsOf(fake.requests.slice(before)).map((r) => r.key), messages: page.messages };
  }

  beforeAll(async () => {
    captureConsole(logged);
    fake = await startFakeAnthropic();
    // Titles (the small model: the team's default) are answered apart, so the queue stays the turns'.
    fake.route = (request) => (JSON.stringify(request.body.system ?? "").includes("short title") ? anthropicReply.text("A title") : undefined);
    app = await openApp("team_providers", (dir) => {
      mkdirSync(path.join(dir, "projects", "b-app"), { recursive: true });
      return projectAppEnv(dir, {
        PARLEY_SIGNUP: "open",
        PARLEY_SHARE: "manual",
        PARLEY_PROVIDERS_ALLOW_HTTP: "true",
        PARLEY_SERVER_KEYS: "none",
        ANTHROPIC_API_KEY: SERVER_KEY,
        ANTHROPIC_BASE_URL: `${fake.url}/v1`,
      });
    });
    stopBus = app.rt.services.bus.subscribeAll((event) => events.push(event));
    const auth: Auth = await (await import("../server/auth/instance")).getAuth();
    const { memberContext } = await import("../server/context");
    ann = await signUp(auth, "ann@providers.test", "Ann");
    const teamA = (await memberContext(ann.headers)).actor.teamId;
    bob = await joinTeam(auth, ann, teamA, "bob@providers.test", { role: "member", name: "Bob" });
    zed = await signUp(auth, "zed@elsewhere.test", "Zed");
    projectA = (await app.rt.services.db.project.findFirstOrThrow({ where: { teamId: teamA } })).id;
    projectB = (await ok<{ id: string }>("project.create", { directory: "b-app" }, zed)).id;
  });

  afterAll(async () => {
    stopBus?.();
    vi.restoreAllMocks();
    await app?.close();
    await fake?.close();
  });

  it("acceptance 2: without a key of its own a team cannot use Anthropic: the operator's key is not offered (serverKeys none)", async () => {
    const overview = await ok<Overview>("provider.overview", undefined, ann);
    expect(overview.serverKeys).toBe("none");
    expect(overview.providers.find((p) => p.provider === "anthropic")).toMatchObject({ source: "none", key: null });
    const { keys, messages } = await ask(ann, projectA, "no key yet");
    expect(keys).toEqual([]);
    const answer = messages.find((m) => m.info.role === "assistant");
    expect(answer?.info.role === "assistant" ? answer.info.error?.message : undefined).toBeUndefined();
    // The team's default without any key is the offline model, not Anthropic with the server's key.
    expect(fake.requests.some((r) => r.key === SERVER_KEY)).toBe(false);
  });

  it("acceptance 2: each team's key is the one its sessions' requests carry", async () => {
    await ok("provider.setKey", { provider: "anthropic", key: KEY_A, baseUrl: `${fake.url}/v1` }, ann);
    await ok("provider.setKey", { provider: "anthropic", key: KEY_B, baseUrl: `${fake.url}/v1` }, zed);
    for (const who of [ann, zed]) await ok("provider.setModels", { enabled: [MODEL], defaultModel: MODEL, smallModel: null }, who);
    const a = await ask(bob, projectA, "from team A");
    const b = await ask(zed, projectB, "from team B");
    expect(a.keys.length).toBeGreaterThan(0);
    expect(new Set(a.keys)).toEqual(new Set([KEY_A]));
    expect(new Set(b.keys)).toEqual(new Set([KEY_B]));
    const reply = a.messages.find((m) => m.info.role === "assistant");
    expect(reply?.info).toMatchObject({ providerId: "anthropic", modelId: "claude-haiku-4-5" });
    expect(fake.requests.some((r) => r.key === SERVER_KEY)).toBe(false);
  });

  it("acceptance 2: a member of B cannot read, use or see A's key; A's member sees only that a key is set", async () => {
    const seenByZed = await ok<Overview>("provider.overview", undefined, zed);
    const seenByBob = await ok<Overview>("provider.overview", undefined, bob);
    expect(JSON.stringify(seenByZed)).not.toContain("Ann");
    expect(seenByBob.providers.find((p) => p.provider === "anthropic")).toMatchObject({ source: "team", key: { name: "provider-anthropic", updatedBy: "Ann" } });
    const secretsOfB = await ok<{ name: string }[]>("secret.list", undefined, zed);
    expect(secretsOfB.map((s) => s.name)).toEqual(["provider-anthropic"]);
    // B's key test uses B's key; a member of A may not test, set or remove keys.
    const before = fake.requests.length;
    fake.reset();
    fake.enqueue(anthropicReply.text("OK"));
    const tested = await ok<TestResult>("provider.test", { provider: "anthropic", modelId: "claude-haiku-4-5" }, zed);
    expect(tested).toMatchObject({ ok: true, model: MODEL, reply: "OK" });
    expect(turnsOf(fake.requests.slice(before)).map((r) => r.key)).toEqual([KEY_B]);
    for (const [procedure, input] of [
      ["provider.test", { provider: "anthropic" }],
      ["provider.setKey", { provider: "anthropic", key: "sk-bob" }],
      ["provider.removeKey", { provider: "anthropic" }],
      ["provider.setLimits", { team: 1, member: null }],
    ] as const) {
      expect((await call(procedure, input, bob)).status, procedure).toBe(403);
    }
    // A model the team did not enable is refused for its turns, with a message saying why.
    const session = await ok<Info>("session.create", { projectId: projectA, title: "not enabled" }, bob);
    await ok("session.prompt", { sessionId: session.id, parts: [{ type: "text", text: "hi" }], model: { providerId: "anthropic", modelId: "claude-opus-4-1" } }, bob);
    await settled(app.rt.services, session.id, 20_000);
    const page = await ok<{ messages: WithParts[] }>("message.page", { sessionId: session.id, limit: 50 }, bob);
    const answer = page.messages.find((m) => m.info.role === "assistant")?.info;
    expect(answer?.role === "assistant" ? answer.error?.message : "").toContain('model "anthropic/claude-opus-4-1" is not enabled for this team');
  });

  it("acceptance 2: a refused key is reported by the test button and the turn as an AuthError, without the key", async () => {
    await ok("provider.setKey", { provider: "anthropic", key: WRONG_B }, zed);
    fake.reset();
    fake.enqueue(anthropicReply.error("bad-key"));
    const tested = await ok<TestResult>("provider.test", { provider: "anthropic", modelId: "claude-haiku-4-5" }, zed);
    expect(tested).toMatchObject({ ok: false, error: "AuthError: invalid x-api-key" });
    const session = await ok<Info>("session.create", { projectId: projectB, title: "bad key" }, zed);
    fake.enqueue(anthropicReply.error("bad-key"));
    await ok("session.prompt", { sessionId: session.id, parts: [{ type: "text", text: "hi" }] }, zed);
    await settled(app.rt.services, session.id, 20_000);
    const page = await ok<{ messages: WithParts[] }>("message.page", { sessionId: session.id, limit: 50 }, zed);
    const answer = page.messages.find((m) => m.info.role === "assistant")?.info;
    expect(answer?.role === "assistant" ? answer.error?.name : undefined).toBe("AuthError");
    expect(turnsOf(fake.requests).at(-1)?.key).toBe(WRONG_B);
  });

  it("acceptance 2: a grep for every key over events, log lines, responses, share pages and stored errors finds nothing", async () => {
    const { session } = await ask(ann, projectA, "shared answer");
    const shareId = (await ok<{ share: { id: string } }>("session.share", { sessionId: session.id }, ann)).share.id;
    const anonymous = { headers: new Headers() } as Browser;
    await ok("share.page", { shareId }, anonymous);
    const stored = await app.rt.services.db.message.findMany({ select: { data: true } });
    const parts = await app.rt.services.db.part.findMany({ select: { data: true } });
    const haystacks = {
      events: JSON.stringify(events),
      logs: logged.join("\n"),
      responses: responses.join("\n"),
      stored: JSON.stringify([stored, parts]),
    };
    expect(haystacks.responses).toContain("shared answer");
    for (const key of [KEY_A, KEY_B, WRONG_B, SERVER_KEY]) {
      for (const [where, text] of Object.entries(haystacks)) expect(text.includes(key), `${where} holds a key`).toBe(false);
    }
  });
});
