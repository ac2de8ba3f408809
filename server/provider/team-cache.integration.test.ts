import { describe, expect, it } from "vitest";
import { until } from "../../test/app";
import { databaseUrl, makeTeam } from "../../test/db";
import { testServices } from "../../test/runtime";
import { Bus } from "../bus/bus";
import { bridge } from "../bus/postgres";
import { withActor } from "../services";
import { Spending } from "../spending";
import * as Admin from "./admin";
import { formatModelRef } from "./models";
import { TEAM_MODELS_TTL_MS, forTeams, serverProviders } from "./team";

/** A team's models are read once for a prompt's few asks, and forgotten when they change (server/provider/team.ts). */

describe("a team's models, kept briefly", () => {
  it("are read again after TEAM_MODELS_TTL_MS, at once after a change on this instance, and per team", async () => {
    let now = 0;
    const server = serverProviders({ openai: { apiKey: undefined, baseUrl: undefined }, providers: { serverKeys: "all", allowHttp: false, catalog: undefined } });
    const teams = forTeams(server, () => now);
    const services = testServices(new Bus(), { models: { ...teams } });
    const { ctx, teamId } = await makeTeam({ services });
    const other = await makeTeam({ services });
    const db = services.db;
    const defaultOf = async (id: string) => formatModelRef((await teams.forTeam(services, id)).default());

    expect(await defaultOf(teamId)).toBe("offline/parley-offline");
    // Written behind the cache's back (as another instance would): not seen until the time is up.
    await db.teamModelSettings.create({ data: { teamId, enabled: [], defaultModel: "compatible/one", smallModel: null, agentModels: {} } });
    expect(await defaultOf(teamId)).toBe("offline/parley-offline");
    now += TEAM_MODELS_TTL_MS + 1;
    expect(await defaultOf(teamId)).toBe("compatible/one");
    // Another team is its own.
    expect(await defaultOf(other.teamId)).toBe("offline/parley-offline");
    // A change through this instance is seen at once.
    await Admin.setModels(withActor(services, ctx.actor), { enabled: [], defaultModel: "compatible/two", smallModel: null });
    expect(await defaultOf(teamId)).toBe("compatible/two");
  });

  it("a change on one instance is seen at once on another: the forgetting travels the bus (PostgreSQL's LISTEN/NOTIFY), not a timer", async () => {
    const server = serverProviders({ openai: { apiKey: undefined, baseUrl: undefined }, providers: { serverKeys: "all", allowHttp: false, catalog: undefined } });
    const problems: string[] = [];
    const log = (message: string) => problems.push(message);
    const [busA, busB] = [new Bus(), new Bus()];
    const links = await Promise.all([bridge(busA, databaseUrl(), { log }), bridge(busB, databaseUrl(), { log })]);
    try {
      // Two instances, each keeping teams' models for TEAM_MODELS_TTL_MS (a minute) on the real clock.
      const [teamsA, teamsB] = [forTeams(server), forTeams(server)];
      const a = testServices(busA, { models: { ...teamsA } });
      const b = testServices(busB, { models: { ...teamsB } });
      const { ctx, teamId } = await makeTeam({ services: a });
      const defaultOnB = async () => formatModelRef((await teamsB.forTeam(b, teamId)).default());
      expect(TEAM_MODELS_TTL_MS).toBeGreaterThanOrEqual(60_000);
      expect(await defaultOnB()).toBe("offline/parley-offline");
      await Admin.setModels(withActor(a, ctx.actor), { enabled: [], defaultModel: "compatible/two", smallModel: null });
      expect(await until("instance B to see the new default", async () => ((await defaultOnB()) === "compatible/two" ? true : undefined), 5_000)).toBe(true);
      // Spending limits are kept with the model settings, and forgotten the same way.
      expect(await Spending.limits(b, teamId)).toEqual({ team: null, member: null });
      await Spending.setLimits(withActor(a, ctx.actor), { team: 0.01, member: null });
      expect(await until("instance B to see the new limit", async () => ((await Spending.limits(b, teamId)).team === 0.01 ? true : undefined), 5_000)).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await Promise.all(links.map((link) => link.close()));
    }
  });
});
