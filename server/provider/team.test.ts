import { describe, expect, it } from "vitest";
import { formatModelRef } from "./models";
import type { ProviderConfig } from "./provider";
import { type KeySource, type TeamModelChoice, teamCatalog, teamModels } from "./team";

/** A team's models decided from its keys and settings (no database: server/provider/team.ts's pure part). */

const NONE = { apiKey: undefined, baseUrl: undefined };
const base: ProviderConfig = { openai: NONE, anthropic: NONE, google: NONE, compatible: NONE };
const noSources: Record<"openai" | "anthropic" | "google" | "compatible", KeySource> = { openai: "none", anthropic: "none", google: "none", compatible: "none" };
const choice = (patch: Partial<TeamModelChoice> = {}): TeamModelChoice => ({ enabled: [], defaultModel: undefined, smallModel: undefined, agentModels: {}, ...patch });
const withAnthropic = { cfg: { ...base, anthropic: { apiKey: "k", baseUrl: undefined } }, sources: { ...noSources, anthropic: "team" as const } };

describe("a team's models", () => {
  it("issue 35 (3): the default is the team's; else the server's configured model; else one its keys reach; else the offline model", () => {
    expect(formatModelRef(teamModels(base, choice(), noSources).default())).toBe("offline/parley-offline");
    expect(formatModelRef(teamModels(withAnthropic.cfg, choice(), withAnthropic.sources).default())).toBe("anthropic/claude-sonnet-4-5");
    // An operator's explicit default stays the default of teams that chose none.
    expect(formatModelRef(teamModels({ ...withAnthropic.cfg, model: "offline/parley-offline" }, choice(), withAnthropic.sources).default())).toBe("offline/parley-offline");
    expect(formatModelRef(teamModels(withAnthropic.cfg, choice({ enabled: ["anthropic/claude-haiku-4-5"] }), withAnthropic.sources).default())).toBe("anthropic/claude-haiku-4-5");
    expect(formatModelRef(teamModels(withAnthropic.cfg, choice({ defaultModel: "anthropic/claude-opus-4-5" }), withAnthropic.sources).default())).toBe("anthropic/claude-opus-4-5");
    const openai = { ...base, openai: { apiKey: "k", baseUrl: undefined } };
    expect(formatModelRef(teamModels(openai, choice(), { ...noSources, openai: "team" }).default())).toBe("openai/gpt-4.1-mini");
  });

  it("issue 35 (3): the small model is the team's; else the server's rule for its default, kept within the enabled models", () => {
    const openai = { ...base, openai: { apiKey: "k", baseUrl: undefined } };
    const sources = { ...noSources, openai: "team" as const };
    expect(formatModelRef(teamModels(openai, choice(), sources).small?.().ref ?? { providerId: "", modelId: "" })).toBe("openai/gpt-4.1-nano");
    expect(formatModelRef(teamModels(openai, choice({ enabled: ["openai/gpt-4.1-mini"] }), sources).small?.().ref ?? { providerId: "", modelId: "" })).toBe("openai/gpt-4.1-mini");
    const set = teamModels(openai, choice({ smallModel: "openai/gpt-5-nano" }), sources);
    expect(set.small?.().ref).toEqual({ providerId: "openai", modelId: "gpt-5-nano" });
    expect(set.compaction?.().ref).toEqual({ providerId: "openai", modelId: "gpt-5-nano" });
    expect(teamModels(openai, choice(), sources).compaction).toBeUndefined();
  });

  it("issue 35 (3): a model the team did not enable is refused; the offline model never is", () => {
    const models = teamModels(withAnthropic.cfg, choice({ enabled: ["anthropic/claude-haiku-4-5"] }), withAnthropic.sources);
    expect(() => models.resolve({ providerId: "anthropic", modelId: "claude-opus-4-1" })).toThrow(/is not enabled for this team/);
    expect(models.resolve({ providerId: "offline", modelId: "parley-offline" }).ref.providerId).toBe("offline");
    expect(models.resolve({ providerId: "anthropic", modelId: "claude-haiku-4-5" }).cost).toMatchObject({ input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 });
    expect(models.agentModel?.("plan")).toBeUndefined();
  });

  it("issue 35 (3): the catalog a team may enable holds the models of the providers it has a key for", () => {
    const ids = teamCatalog(withAnthropic.cfg, withAnthropic.sources).map(formatModelRef);
    expect(ids[0]).toBe("offline/parley-offline");
    expect(ids).toContain("anthropic/claude-sonnet-4-5");
    expect(ids.some((id) => id.startsWith("openai/") || id.startsWith("google/"))).toBe(false);
  });
});
