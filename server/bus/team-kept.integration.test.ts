import { describe, expect, it } from "vitest";
import { until } from "../../test/app";
import { databaseUrl, makeTeam } from "../../test/db";
import { testServices } from "../../test/runtime";
import { Instructions } from "../instructions";
import { ToolServerConfig } from "../mcp";
import { withActor } from "../services";
import { Bus } from "./bus";
import { bridge } from "./postgres";
import { TEAM_KEPT_TTL_MS, TeamKept } from "./team-kept";

/**
 * A team's stored instructions and tool servers are read once, not at every step, and
 * forgotten when they change — on every instance at once (server/bus/team-kept.ts).
 */

describe("TeamKept", () => {
  it("keeps a value per team and key until it is forgotten or its time is up; a failed read is not kept", async () => {
    let now = 0;
    const bus = new Bus();
    const kept = new TeamKept<number>(bus, "test", () => now);
    let reads = 0;
    const read = () => Promise.resolve(++reads);
    expect(await kept.get("team_a", "x", read)).toBe(1);
    expect(await kept.get("team_a", "x", read)).toBe(1);
    expect(await kept.get("team_a", "y", read)).toBe(2);
    expect(await kept.get("team_b", "x", read)).toBe(3);
    kept.forget("team_a");
    expect(await kept.get("team_a", "x", read)).toBe(4);
    // Another team's values stay.
    expect(await kept.get("team_b", "x", read)).toBe(3);
    now += TEAM_KEPT_TTL_MS + 1;
    expect(await kept.get("team_b", "x", read)).toBe(5);
    await expect(kept.get("team_c", "x", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await kept.get("team_c", "x", read)).toBe(6);
    // Another kind's forgetting is not this one's.
    const other = new TeamKept<number>(bus, "other", () => now);
    other.forget("team_b");
    expect(await kept.get("team_b", "x", read)).toBe(5);
  });

  it("a change of instructions or tool servers on one instance is seen at once on another (the forgetting travels PostgreSQL's LISTEN/NOTIFY)", async () => {
    const problems: string[] = [];
    const log = (message: string) => problems.push(message);
    const [busA, busB] = [new Bus(), new Bus()];
    const links = await Promise.all([bridge(busA, databaseUrl(), { log }), bridge(busB, databaseUrl(), { log })]);
    try {
      const a = testServices(busA);
      const b = testServices(busB);
      const { ctx, teamId, projectId } = await makeTeam({ services: a });
      const step = { teamId, projectId, directory: "/nowhere", workspaceId: null };
      const teamTextOnB = async () => (await Instructions.forStep(b, step)).texts.join("\n");
      const serversOnB = async () => (await b.mcp.specs(teamId, projectId)).map((spec) => spec.name);

      expect(await teamTextOnB()).not.toContain("Kept rule");
      expect(await serversOnB()).toEqual([]);
      // Written behind the caches' backs (not through Instructions.set or the tool servers' save): instance B keeps what it read.
      await b.db.team.update({ where: { id: teamId }, data: { instructions: "Hidden rule" } });
      expect(await teamTextOnB()).not.toContain("Hidden rule");

      const onA = withActor(a, ctx.actor);
      await Instructions.set(onA, { text: "Kept rule: be brief." });
      expect(await until("instance B to read the new instructions", async () => ((await teamTextOnB()).includes("Kept rule: be brief.") ? true : undefined), 5_000)).toBe(true);
      const { id } = await ToolServerConfig.save(onA, { name: "kept-local", type: "local", command: ["node", "server.js"] });
      expect(await until("instance B to see the new server", async () => ((await serversOnB()).includes("kept-local") ? true : undefined), 5_000)).toBe(true);
      await ToolServerConfig.remove(onA, { id });
      expect(await until("instance B to see it gone", async () => ((await serversOnB()).length === 0 ? true : undefined), 5_000)).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await Promise.all(links.map((link) => link.close()));
    }
  });
});
