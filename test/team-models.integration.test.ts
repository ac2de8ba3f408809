import { mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Bus } from "../server/bus/bus";
import { CatalogFile, mergedOverrides } from "../server/provider/catalog-file";
import { formatModelRef } from "../server/provider/models";
import { forTeams, serverProviders } from "../server/provider/team";
import { withActor } from "../server/services";
import { Session } from "../server/session";
import * as Prompt from "../server/session/prompt";
import { makeTeam } from "./db";
import { type FakeOpenAI, reply } from "./fake-openai";
import { testServices } from "./runtime";
import { fakeOpenAIAround, echo, settled } from "./session-harness";

/**
 * A team's models (issue 35, point 3): the catalog file the operator updates without a
 * release; the team's enabled, default, small and per-agent models, read by the real
 * session code — titles and compaction use the small model when the team set one — on an
 * OpenAI-compatible fake server whose requests name the model they were made for.
 */

const OPERATOR = { openai: { apiKey: undefined, baseUrl: undefined }, anthropic: { apiKey: "sk-ant-operator", baseUrl: undefined }, google: { apiKey: undefined, baseUrl: undefined } };

describe("the catalog file", () => {
  it("issue 35 (3): the operator's file updates a bundled price and adds a model, read again when it changes; a broken file keeps the last entries", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "parley-catalog-"));
    const file = path.join(dir, "models.json");
    writeFileSync(file, JSON.stringify({ "anthropic/claude-haiku-4-5": { cost: { input: 2 } }, "anthropic/claude-next": { name: "Claude Next", limit: { context: 500_000, output: 10_000 }, cost: { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 }, reasoning: true } }));
    const server = serverProviders({ ...OPERATOR, providers: { serverKeys: "all", allowHttp: false, catalog: file } });
    const read = new CatalogFile(file);
    expect(Object.keys(read.read())).toEqual(["anthropic/claude-haiku-4-5", "anthropic/claude-next"]);
    // The configuration's `models` wins over the file, field by field.
    expect(mergedOverrides(read, { "anthropic/claude-haiku-4-5": { cost: { output: 9 } } })["anthropic/claude-haiku-4-5"]).toEqual({ cost: { input: 2, output: 9 } });
    expect(server.overrides()["anthropic/claude-next"]?.reasoning).toBe(true);

    writeFileSync(file, JSON.stringify({ "anthropic/claude-haiku-4-5": { cost: { input: 3 } } }));
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(server.overrides()).toEqual({ "anthropic/claude-haiku-4-5": { cost: { input: 3 } } });
    writeFileSync(file, "{ not json");
    utimesSync(file, new Date(), new Date(Date.now() + 10_000));
    expect(server.overrides()).toEqual({ "anthropic/claude-haiku-4-5": { cost: { input: 3 } } });
  });
});

describe("a team's models through the session code", () => {
  let fake: FakeOpenAI;
  fakeOpenAIAround((started) => (fake = started));

  async function setup(choice: { enabled?: string[]; defaultModel?: string; smallModel?: string; agentModels?: Record<string, string> }) {
    const bus = new Bus();
    const cfg = { openai: { apiKey: undefined, baseUrl: `${fake.url}/v1` }, providers: { serverKeys: "all" as const, allowHttp: false, catalog: undefined } };
    const server = serverProviders(cfg);
    const services = testServices(bus, {
      models: { ...forTeams(server) },
      settings: { maxAttempts: 1, compaction: { auto: false, prune: false }, flushMs: 20 },
      tools: [echo],
      executeTool: (t, input, ctx) => t.execute(t.parameters.parse(input), ctx),
    });
    const { ctx, projectId, teamId } = await makeTeam({ services });
    await services.db.teamModelSettings.create({ data: { teamId, enabled: choice.enabled ?? [], defaultModel: choice.defaultModel ?? null, smallModel: choice.smallModel ?? null, agentModels: choice.agentModels ?? {} } });
    fake.reset();
    const first = fake.requests.length;
    return { services, ctx, projectId, requests: () => fake.requests.slice(first) };
  }

  it("issue 35 (3): a new prompt uses the team's default model, titles use its small model", async () => {
    const s = await setup({ enabled: ["compatible/big", "compatible/tiny"], defaultModel: "compatible/big", smallModel: "compatible/tiny" });
    fake.route = (request) => (JSON.stringify(request.body.messages).includes("short title") ? reply.text("Greeting") : reply.text("Hello."));
    try {
      const session = await Session.create(s.ctx, { projectId: s.projectId });
      const user = await Prompt.prompt(withActor(s.services, s.ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "say hello" }] });
      await settled(s.services, session.id);
      expect(formatModelRef(user.model)).toBe("compatible/big");
      const models = s.requests().map((r) => r.body.model).sort();
      expect(models).toEqual(["big", "tiny"]);
    } finally {
      fake.route = undefined;
    }
  });

  it("issue 35 (3): compaction uses the team's small model when set; the team's agent model applies when the member names none", async () => {
    const s = await setup({ enabled: ["compatible/big", "compatible/tiny", "compatible/planner"], defaultModel: "compatible/big", smallModel: "compatible/tiny", agentModels: { plan: "compatible/planner" } });
    const session = await Session.create(s.ctx, { projectId: s.projectId, title: "named" });
    fake.enqueue(reply.text("Hi."));
    await Prompt.prompt(withActor(s.services, s.ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "hello" }] });
    await settled(s.services, session.id);
    fake.enqueue(reply.text("SUMMARY"));
    await Prompt.compact(withActor(s.services, s.ctx.actor), { sessionId: session.id });
    await settled(s.services, session.id);
    fake.enqueue(reply.text("A plan."));
    const planned = await Prompt.prompt(withActor(s.services, s.ctx.actor), { sessionId: session.id, agent: "plan", parts: [{ type: "text", text: "plan it" }] });
    await settled(s.services, session.id);
    expect(formatModelRef(planned.model)).toBe("compatible/planner");
    expect(s.requests().map((r) => r.body.model)).toEqual(["big", "tiny", "planner"]);
  });

  it("issue 35 (3): a model the team did not enable fails the turn with a message naming it; the picker lists only enabled models", async () => {
    const s = await setup({ enabled: ["compatible/big"], defaultModel: "compatible/big" });
    const session = await Session.create(s.ctx, { projectId: s.projectId, title: "named" });
    await Prompt.prompt(withActor(s.services, s.ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "hi" }], model: { providerId: "compatible", modelId: "other" } });
    await settled(s.services, session.id);
    const [, answer] = await Session.allMessages(s.ctx, session.id);
    expect(answer?.info.role === "assistant" ? answer.info.error?.message : "").toContain('model "compatible/other" is not enabled for this team');
    expect(s.requests()).toHaveLength(0);
    const models = await s.services.models.forTeam?.(s.services, s.ctx.actor.teamId);
    expect(models?.available().map(formatModelRef)).toEqual(["compatible/big"]);
    expect(models?.available()[0]?.priceUnknown).toBe(true);
  });
});
