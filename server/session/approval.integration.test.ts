import { describe, expect, it } from "vitest";
import { z } from "zod";
import { makeTeam } from "../../test/db";
import { finish, isPartUpdate, recorder, script, scriptedServices } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import { Asked, type Request } from "../permission/events";
import { withActor } from "../services";
import { ShareView } from "../share";
import { define } from "../tool/tool";
import type { Part } from "./message";
import * as Prompt from "./prompt";
import { Session } from ".";

/**
 * A tool call waiting for a person to answer its permission question says so in its
 * part (running, with `approval`), for members and share viewers alike; once answered it
 * no longer does. A call the rules allow never says so.
 */

/** A tool that asks permission "probe" for its target, then reports it. */
const probe = define({
  id: "probe",
  description: "probe a target",
  parameters: z.object({ target: z.string() }),
  execute: async (input, ctx) => {
    await ctx.ask({ permission: "probe", patterns: [input.target] });
    return { title: `probed ${input.target}`, output: "probed", metadata: {} };
  },
});

const steps = [
  [{ type: "tool-call" as const, toolCallId: "c1", toolName: "probe", input: JSON.stringify({ target: "x" }) }, finish("tool-calls")],
  [{ type: "text-start" as const, id: "t" }, { type: "text-delta" as const, id: "t", delta: "done" }, { type: "text-end" as const, id: "t" }, finish("stop")],
];

type ToolPart = Extract<Part, { type: "tool" }>;
const toolStates = (updates: { part: Part }[]) =>
  updates.flatMap(({ part }) => (part.type === "tool" ? [{ status: part.state.status, approval: part.state.status === "running" ? part.state.approval : undefined }] : []));

/** `ask`: the session's rules put the probe to a person (the built-in rules allow it). */
async function setup(ask: boolean) {
  const bus = new Bus();
  const team = await makeTeam({ bus });
  const services = scriptedServices(bus, script(steps), { tools: [probe] });
  const ctx = withActor(services, team.ctx.actor);
  const session = await Session.create(ctx, {
    projectId: team.projectId,
    title: "Approval",
    ...(ask ? { permission: [{ permission: "probe", pattern: "*", action: "ask" as const }] } : {}),
  });
  const rec = recorder(bus, team.teamId, session.id);
  await Prompt.prompt(ctx, { sessionId: session.id, parts: [{ type: "text", text: "probe x" }] });
  return { services, ctx, session, rec };
}

describe("a tool waiting for approval (integration)", () => {
  it("is running with `approval` while the question is open (stored, published, shown to share viewers), and without it once answered", async () => {
    const { services, ctx, session, rec } = await setup(true);
    const asked = await rec.when((e) => e.name === Asked.name);
    const request = (asked.payload as { request: Request }).request;
    const waiting = (part: Part): part is ToolPart => part.type === "tool" && part.state.status === "running" && part.state.approval?.permission === "probe";
    await rec.when((e) => isPartUpdate(e, waiting));

    // Stored: a reload (or a share viewer) sees the call waiting.
    const stored = async () => (await Session.allMessages(ctx, session.id)).flatMap((m) => m.parts).find((p) => p.type === "tool");
    await expect.poll(async () => {
      const part = await stored();
      return part?.type === "tool" && part.state.status === "running" ? part.state.approval : undefined;
    }).toEqual({ permission: "probe" });
    const shared = await Session.share(ctx, session.id);
    const viewed = await ShareView.page(ctx, { shareId: shared.share?.id ?? "" });
    const viewedTool = viewed.messages.messages.flatMap((m) => m.parts).find((p) => p.type === "tool");
    expect(viewedTool?.type === "tool" && viewedTool.state.status === "running" && viewedTool.state.approval).toEqual({ permission: "probe" });

    await services.permissions.reply(ctx.actor, { requestId: request.id, reply: "once" });
    await services.runners.idle(session.id);

    // Published: running, waiting, running again (answered), then completed.
    const states = toolStates(rec.partUpdates());
    const firstWaiting = states.findIndex((s) => s.approval !== undefined);
    expect(firstWaiting).toBeGreaterThanOrEqual(0);
    const after = states.slice(firstWaiting);
    expect(after.findIndex((s) => s.status === "running" && s.approval === undefined)).toBeLessThan(after.findIndex((s) => s.status === "completed"));
    expect(after.at(-1)).toEqual({ status: "completed", approval: undefined });
    const final = await stored();
    expect(final?.type === "tool" && final.state.status).toBe("completed");
    expect(JSON.stringify(final)).not.toContain("approval");
  });

  it("a call the rules allow never waits", async () => {
    const { services, session, rec } = await setup(false);
    await services.runners.idle(session.id);
    const states = toolStates(rec.partUpdates());
    expect(states.at(-1)?.status).toBe("completed");
    expect(states.some((s) => s.approval !== undefined)).toBe(false);
    expect(rec.events.some((e) => e.name === Asked.name)).toBe(false);
  });
});
