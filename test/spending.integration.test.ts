import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configServices } from "../server/assemble";
import { Bus } from "../server/bus/bus";
import { type Bridge, bridge } from "../server/bus/postgres";
import { loadConfig } from "../server/config";
import { createDb } from "../server/db/client";
import { type Services, withActor } from "../server/services";
import * as Prompt from "../server/session/prompt";
import type { Info } from "../server/session/info";
import type { Spending } from "../server/spending";
import { type TestApp, openApp, trpcAnswer, type Auth } from "./app";
import { type Browser, signUp } from "./auth";
import { anthropicReply, startFakeAnthropic } from "./fake-anthropic";
import type { FakeProvider } from "./fake-provider";
import { makeTeam } from "./db";
import { type FakeOpenAI, reply } from "./fake-openai";
import { fakeOpenAIAround, scriptedServices, settled } from "./session-harness";
import { compatibleChatModel } from "../server/provider/compatible/chat-stream";
import { Session } from "../server/session";

/**
 * Acceptance 3 of issue 35: a team's monthly limit of $0.01 with a priced model
 * (anthropic/claude-sonnet-4-5 at $3 / $15 per million tokens, answers of 600 input and
 * 480 output tokens: $0.009 each). The first answer leaves 90 % used — the notice; the
 * second goes past the limit; the next prompt is refused with the error naming the limit,
 * on this instance through HTTP and on a second instance (its own services, bus and
 * connections on the same database), which sees the limit and the spending the first set.
 */

const MODEL = { providerId: "anthropic", modelId: "claude-sonnet-4-5" };
const TURN = () => anthropicReply.answer([{ kind: "text", deltas: ["priced answer"] }], { input: 600, output: 480 });

describe("monthly spending limits (integration, two instances)", () => {
  let app: TestApp;
  let fake: FakeProvider;
  let ann: Browser;
  let teamId: string;
  let userId: string;
  let projectId: string;
  let second: Services;
  let secondLink: Bridge | undefined;

  const call = <T>(procedure: string, input: unknown) => trpcAnswer<T>(app, procedure, input, ann.headers);
  const ok = async <T>(procedure: string, input: unknown): Promise<T> => {
    const answer = await call<T>(procedure, input);
    expect(answer.status, `${procedure}: ${answer.message}`).toBe(200);
    return answer.data;
  };

  beforeAll(async () => {
    fake = await startFakeAnthropic();
    fake.route = (request) => (JSON.stringify(request.body.system ?? "").includes("short title") ? anthropicReply.text("A title") : TURN());
    app = await openApp("spending", (dir) => {
      mkdirSync(path.join(dir, "projects", "app"), { recursive: true });
      return {
        PARLEY_DATA_DIR: path.join(dir, "data"),
        PARLEY_PROJECT_DIR: path.join(dir, "projects", "app"),
        PARLEY_PROJECTS_ROOT: path.join(dir, "projects"),
        PARLEY_SIGNUP: "invite",
        ANTHROPIC_API_KEY: "sk-ant-operator",
        ANTHROPIC_BASE_URL: `${fake.url}/v1`,
        PARLEY_SMALL_MODEL: "offline/parley-offline",
      };
    });
    const auth: Auth = await (await import("../server/auth/instance")).getAuth();
    const { memberContext } = await import("../server/context");
    ann = await signUp(auth, "ann@spending.test", "Ann");
    ({ teamId, userId } = (await memberContext(ann.headers)).actor);
    projectId = (await app.rt.services.db.project.findFirstOrThrow({ where: { teamId } })).id;
    // A second instance: the configuration, its own database client, bus (bridged to the
    // first's through PostgreSQL, as a server's is), run lock and runners.
    const cfg = loadConfig(process.env);
    const bus = new Bus();
    secondLink = await bridge(bus, cfg.databaseUrl ?? "");
    second = await configServices(cfg, createDb(cfg.databaseUrl ?? ""), bus);
  });

  afterAll(async () => {
    await secondLink?.close();
    await second?.lock.close();
    await second?.db.$disconnect();
    await app?.close();
    await fake?.close();
  });

  async function answered(sessionId: string, services: Services) {
    await settled(services, sessionId, 20_000);
  }

  it("acceptance 3: with a $0.01 limit, 80 % brings a notice, and the prompt after the limit is refused naming it, on both instances", async () => {
    expect(await ok<Spending.Limits>("provider.setLimits", { team: 0.01, member: null })).toEqual({ team: 0.01, member: null });
    const session = await ok<Info>("session.create", { projectId, title: "priced" });

    await ok("session.prompt", { sessionId: session.id, parts: [{ type: "text", text: "one" }], model: MODEL });
    await answered(session.id, app.rt.services);
    let summary = await ok<Spending.Summary>("provider.spending", undefined);
    expect(summary.team).toBe(0.009);
    expect(summary.members).toEqual([{ userId, name: "Ann", cost: 0.009 }]);
    expect(summary.projects).toEqual([{ projectId, name: expect.any(String) as string, cost: 0.009 }]);
    expect(summary.notice).toBe("The team has used 90 % of its monthly limit of $0.01.");

    // Under the limit still: the second instance answers, and the spending goes past it.
    const actor = { userId, teamId };
    await Prompt.prompt(withActor(second, actor), { sessionId: session.id, parts: [{ type: "text", text: "two" }], model: MODEL });
    await answered(session.id, second);
    summary = await ok<Spending.Summary>("provider.spending", undefined);
    expect(summary.team).toBe(0.018);
    expect(summary.notice).toBe("The team's monthly limit of $0.01 is reached: new prompts are refused.");

    const requests = fake.requests.length;
    const refused = await call("session.prompt", { sessionId: session.id, parts: [{ type: "text", text: "three" }], model: MODEL });
    expect(refused.status).toBe(403);
    expect(refused.message).toMatch(/^The team's monthly spending limit of \$0\.01 is reached \(\$0\.018 spent in \w+ \d{4}\): new prompts are refused/);
    const elsewhere = await Prompt.prompt(withActor(second, actor), { sessionId: session.id, parts: [{ type: "text", text: "three" }], model: MODEL }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(elsewhere).toMatchObject({ code: "FORBIDDEN", message: refused.message });
    expect(fake.requests.length).toBe(requests);

    // Raised on one instance, the other lets prompts through again.
    await ok("provider.setLimits", { team: 1, member: null });
    await Prompt.prompt(withActor(second, actor), { sessionId: session.id, parts: [{ type: "text", text: "four" }], model: MODEL });
    await answered(session.id, second);
    expect((await ok<Spending.Summary>("provider.spending", undefined)).team).toBe(0.027);
  });

  it("issue 35 (2): a team's base URL must be https:// unless the operator allows http://, and holds no credentials", async () => {
    const http = await call("provider.setKey", { provider: "anthropic", key: "sk-ant-team", baseUrl: "http://127.0.0.1:9/v1" });
    expect(http.status).toBe(400);
    expect(http.message).toBe("A provider's base URL must be https:// (the operator allows http:// with providers.allowHttp).");
    const credentials = await call("provider.setKey", { provider: "anthropic", key: "sk-ant-team", baseUrl: "https://user:pass@proxy.example/v1" });
    expect(credentials.status).toBe(400);
    expect(credentials.message).toBe("A provider's base URL cannot hold credentials: set the key instead.");
    const keyless = await call("provider.setKey", { provider: "google" });
    expect(keyless.status).toBe(400);
    expect(await app.rt.services.db.teamProvider.count({ where: { teamId } })).toBe(0);
  });

  it("acceptance 3: a member's own monthly limit refuses prompts in their sessions", async () => {
    await ok("provider.setLimits", { team: null, member: 0.02 });
    const session = await ok<Info>("session.create", { projectId, title: "member limit" });
    const refused = await call("session.prompt", { sessionId: session.id, parts: [{ type: "text", text: "more" }], model: MODEL });
    expect(refused.status).toBe(403);
    expect(refused.message).toContain("The monthly spending limit per member of $0.02 is reached");
  });
});

describe("a running turn past the limit", () => {
  let fake: FakeOpenAI;
  fakeOpenAIAround((started) => (fake = started));

  it("acceptance 3: a turn that goes past the limit finishes its step and asks for no other", async () => {
    const bus = new Bus();
    const services = scriptedServices(bus, compatibleChatModel("priced", { baseURL: `${fake.url}/v1`, apiKey: "test" }));
    const { ctx, projectId, teamId } = await makeTeam({ services });
    await services.db.teamModelSettings.create({ data: { teamId, monthlyLimit: "0.01" } });
    const session = await Session.create(ctx, { projectId, title: "long turn" });
    // A tool call whose step costs (1000·3 + 500·15) / 1e6 = $0.0105 at the harness prices; the step after it would answer.
    fake.enqueue(reply.toolCall({ id: "call_1", name: "echo", pieces: ['{"text":"hi"}'] }, { prompt: 1000, completion: 500 }), reply.text("never asked"));
    await Prompt.prompt(withActor(services, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "go" }] });
    await settled(services, session.id);
    const [, first, second] = await Session.allMessages(ctx, session.id);
    expect(first?.parts.some((p) => p.type === "tool" && p.state.status === "completed")).toBe(true);
    expect(second?.info.role === "assistant" ? second.info.error?.message : undefined).toMatch(/^The team's monthly spending limit of \$0\.01 is reached \(\$0\.0105 spent in /);
    expect(fake.pending()).toBe(1);
  });
});
