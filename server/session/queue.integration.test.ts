import { beforeEach, describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { assistantMessage, parleyError, record, textPart, userMessage } from "../../test/fixtures";
import { Bus } from "../bus/bus";
import * as Id from "../id";
import { withActor, type Context } from "../services";
import { updateMessage, updatePart } from "./transcript";
import { Session } from ".";

/** Cancelling a queued message: only before an answer has it in view, only by its author, only in the team. */
describe("cancelQueued (integration)", () => {
  let bus: Bus;
  let ctx: Context;
  let sessionId: string;

  beforeEach(async () => {
    bus = new Bus();
    const team = await makeTeam({ bus });
    ctx = team.ctx;
    sessionId = (await Session.create(ctx, { projectId: team.projectId })).id;
  });

  /** A turn in progress (a question and its running answer) and a message sent behind it (their author: the session's). */
  async function queuedBehindRunningReply() {
    const first = userMessage(sessionId);
    await updateMessage(ctx, first);
    const reply = assistantMessage(sessionId, first.id, { time: { created: Date.now() } });
    await updateMessage(ctx, reply);
    const queued = userMessage(sessionId);
    await updateMessage(ctx, queued);
    await updatePart(ctx, textPart(sessionId, queued.id, "and also this"));
    return { first, reply, queued };
  }

  it("deletes a queued message with its parts and tells the session's viewers", async () => {
    const { queued } = await queuedBehindRunningReply();
    const events = record(bus, ctx.actor.teamId, sessionId);
    await Session.cancelQueued(ctx, { sessionId, messageId: queued.id });
    expect(await ctx.db.message.count({ where: { id: queued.id } })).toBe(0);
    expect(await ctx.db.part.count({ where: { messageId: queued.id } })).toBe(0);
    expect(events.events.filter((e) => e.name === "message.removed").map((e) => e.payload)).toEqual([{ sessionId, messageId: queued.id }]);
  });

  it("refuses once an answer has the message in view, and leaves it stored", async () => {
    const { queued } = await queuedBehindRunningReply();
    await updateMessage(ctx, assistantMessage(sessionId, queued.id, { time: { created: Date.now() } }));
    await parleyError(Session.cancelQueued(ctx, { sessionId, messageId: queued.id }), "CONFLICT");
    expect(await ctx.db.message.count({ where: { id: queued.id } })).toBe(1);
  });

  it("refuses another member, another team, an answer and an unknown message", async () => {
    const { queued, reply } = await queuedBehindRunningReply();
    const mate = Id.ascending("user");
    await ctx.db.user.create({ data: { id: mate, email: `${mate}@test.local`, name: "Mate" } });
    const { teamId } = ctx.actor;
    await ctx.db.membership.create({ data: { teamId, userId: mate, role: "member" } });
    await parleyError(Session.cancelQueued(withActor(ctx, { userId: mate, teamId }), { sessionId, messageId: queued.id }), "FORBIDDEN");
    const other = await makeTeam({ bus });
    await parleyError(Session.cancelQueued(other.ctx, { sessionId, messageId: queued.id }), "NOT_FOUND");
    await parleyError(Session.cancelQueued(ctx, { sessionId, messageId: reply.id }), "INVALID");
    await parleyError(Session.cancelQueued(ctx, { sessionId, messageId: Id.ascending("message") }), "NOT_FOUND");
    expect(await ctx.db.message.count({ where: { id: queued.id } })).toBe(1);
  });
});
