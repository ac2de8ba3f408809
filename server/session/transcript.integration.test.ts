import { describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import { assistantMessage, parleyError, record, seedTurns, textPart, userMessage } from "../../test/fixtures";
import * as Id from "../id";
import { Session } from ".";
import type { Part } from "./message";

describe("Session messages and parts (integration)", () => {
  it("returns the newest page oldest-first with parts in order, and a cursor to older pages", async () => {
    const { ctx, projectId } = await makeTeam();
    const session = await Session.create(ctx, { projectId });
    const turns = await seedTurns(ctx, session.id, 6); // 12 messages
    const all = turns.flatMap((t) => [t.user.id, t.assistant.id]);

    const newest = await Session.messages(ctx, session.id, { limit: 5 });
    expect(newest.messages.map((m) => m.info.id)).toEqual(all.slice(-5));
    expect(newest.corrupt).toEqual([]);
    expect(newest.cursor).toBe(all.at(-5));
    const lastAssistant = newest.messages.at(-1)!;
    expect(lastAssistant.parts.map((p) => p.type)).toEqual(["step-start", "text", "tool", "step-finish"]);
    expect(lastAssistant.parts).toEqual(turns.at(-1)!.parts.slice(1));

    const older = await Session.messages(ctx, session.id, { limit: 5, before: newest.cursor });
    expect(older.messages.map((m) => m.info.id)).toEqual(all.slice(-10, -5));
    const oldest = await Session.messages(ctx, session.id, { limit: 5, before: older.cursor });
    expect(oldest.messages.map((m) => m.info.id)).toEqual(all.slice(0, 2));
    expect(oldest.cursor).toBeUndefined();
    expect(oldest.messages[0]?.parts).toEqual([turns[0]!.parts[0]]);

    const exact = await Session.messages(ctx, session.id, { limit: 12 });
    expect(exact.messages).toHaveLength(12);
    expect(exact.cursor).toBeUndefined();

    await parleyError(Session.messages(ctx, session.id, { limit: 0 }), "INVALID");
    await parleyError(Session.messages(ctx, session.id, { before: "prt_1" }), "INVALID");
    const empty = await Session.create(ctx, { projectId });
    expect(await Session.messages(ctx, empty.id)).toEqual({ messages: [], cursor: undefined, corrupt: [] });
  });

  it("message() and part() read one row, scoped to the session", async () => {
    const { ctx, projectId } = await makeTeam();
    const a = await Session.create(ctx, { projectId });
    const b = await Session.create(ctx, { projectId });
    const [turn] = await seedTurns(ctx, a.id, 1);
    const read = await Session.message(ctx, a.id, turn!.assistant.id);
    expect(read.info).toEqual(turn!.assistant);
    expect(read.parts).toEqual(turn!.parts.slice(1));
    expect(await Session.part(ctx, a.id, turn!.parts[0]!.id)).toEqual(turn!.parts[0]);
    // The right ids through the wrong session are not found.
    await parleyError(Session.message(ctx, b.id, turn!.assistant.id), "NOT_FOUND");
    await parleyError(Session.part(ctx, b.id, turn!.parts[0]!.id), "NOT_FOUND");
    await parleyError(Session.message(ctx, a.id, Id.ascending("message")), "NOT_FOUND");
    await parleyError(Session.part(ctx, a.id, turn!.assistant.id), "INVALID");
  });

  it("updateMessage and updatePart upsert and publish, with the streaming delta", async () => {
    const team = await makeTeam();
    const ctx = team.ctx;
    const session = await Session.create(ctx, { projectId: team.projectId });
    const events = record(ctx.bus, team.teamId, session.id);

    const user = userMessage(session.id);
    expect(await Session.updateMessage(ctx, user)).toEqual(user);
    const assistant = assistantMessage(session.id, user.id, { finish: undefined, time: { created: Date.now() } });
    await Session.updateMessage(ctx, assistant);
    const part = textPart(session.id, assistant.id, "Hel");
    await Session.updatePart(ctx, part, "Hel");
    const grown: Part = { ...part, text: "Hello" };
    await Session.updatePart(ctx, grown, "lo");
    await Session.updatePart(ctx, { ...grown, text: "Hello!" });
    const done = { ...assistant, finish: "stop", time: { created: assistant.time.created, completed: Date.now() } };
    await Session.updateMessage(ctx, done);

    expect(events.names()).toEqual(["message.updated", "message.updated", "message.part.updated", "message.part.updated", "message.part.updated", "message.updated"]);
    expect(events.events[2]?.payload).toEqual({ part, delta: "Hel" });
    expect(events.events[3]?.payload).toEqual({ part: grown, delta: "lo" });
    expect(events.events[4]?.payload).toEqual({ part: { ...grown, text: "Hello!" } });
    expect(events.events[5]?.payload).toEqual({ info: done });

    const stored = await Session.message(ctx, session.id, assistant.id);
    expect(stored.info).toEqual(done);
    expect(stored.parts).toEqual([{ ...grown, text: "Hello!" }]);
    expect(await testDb().part.count({ where: { messageId: assistant.id } })).toBe(1);
  });

  it("refuses invalid messages and parts, and parts of a message in another session", async () => {
    const { ctx, projectId } = await makeTeam();
    const a = await Session.create(ctx, { projectId });
    const b = await Session.create(ctx, { projectId });
    const user = userMessage(a.id);
    await Session.updateMessage(ctx, user);
    await parleyError(Session.updateMessage(ctx, { ...user, agent: "" }), "INVALID");
    await parleyError(Session.updateMessage(ctx, { ...user, id: "prt_nope" }), "INVALID");
    // Moving a message to another session is refused.
    await parleyError(Session.updateMessage(ctx, { ...user, sessionId: b.id }), "INVALID");
    await parleyError(Session.updatePart(ctx, { ...textPart(a.id, user.id, "x"), text: 42 } as never), "INVALID");
    await parleyError(Session.updatePart(ctx, textPart(b.id, user.id, "x")), "NOT_FOUND");
    await parleyError(Session.updatePart(ctx, textPart(a.id, Id.ascending("message"), "x")), "NOT_FOUND");
    const part = textPart(a.id, user.id, "x");
    await Session.updatePart(ctx, part);
    const other = userMessage(a.id);
    await Session.updateMessage(ctx, other);
    await parleyError(Session.updatePart(ctx, { ...part, messageId: other.id }), "INVALID");
    expect(await Session.part(ctx, a.id, part.id)).toEqual(part);
  });

  it("removeMessage takes its parts along and removePart removes one part, each with its event", async () => {
    const team = await makeTeam();
    const ctx = team.ctx;
    const session = await Session.create(ctx, { projectId: team.projectId });
    const [first, second] = await seedTurns(ctx, session.id, 2);
    const events = record(ctx.bus, team.teamId, session.id);

    await Session.removeMessage(ctx, session.id, first!.assistant.id);
    expect(events.events[0]).toMatchObject({ name: "message.removed", payload: { sessionId: session.id, messageId: first!.assistant.id } });
    expect(await testDb().part.count({ where: { messageId: first!.assistant.id } })).toBe(0);
    await parleyError(Session.message(ctx, session.id, first!.assistant.id), "NOT_FOUND");

    const gone = second!.parts[2]!;
    await Session.removePart(ctx, session.id, gone.messageId, gone.id);
    expect(events.events[1]).toMatchObject({
      name: "message.part.removed",
      payload: { sessionId: session.id, messageId: gone.messageId, partId: gone.id },
    });
    expect((await Session.message(ctx, session.id, second!.assistant.id)).parts.map((p) => p.id)).toEqual(
      second!.parts.slice(1).filter((p) => p.id !== gone.id).map((p) => p.id),
    );
    expect((await Session.messages(ctx, session.id)).messages.map((m) => m.info.id)).toEqual([first!.user.id, second!.user.id, second!.assistant.id]);

    await parleyError(Session.removeMessage(ctx, session.id, first!.assistant.id), "NOT_FOUND");
    await parleyError(Session.removePart(ctx, session.id, gone.messageId, gone.id), "NOT_FOUND");
    // A part through the wrong message is not removed.
    const kept = second!.parts[1]!;
    await parleyError(Session.removePart(ctx, session.id, second!.user.id, kept.id), "NOT_FOUND");
    expect(await Session.part(ctx, session.id, kept.id)).toEqual(kept);
    expect(events.events).toHaveLength(2);
  });
});

describe("corrupt rows (integration)", () => {
  it("part() raises CORRUPT naming the table and row; messages() reports the row and keeps the rest", async () => {
    const { ctx, projectId } = await makeTeam();
    const session = await Session.create(ctx, { projectId });
    const [turn] = await seedTurns(ctx, session.id, 1);
    const badId = Id.ascending("part");
    await testDb().part.create({ data: { id: badId, messageId: turn!.assistant.id, sessionId: session.id, type: "text", data: { text: 42 } } });
    const alsoBad = Id.ascending("part");
    await testDb().$executeRaw`INSERT INTO "Part" (id, "messageId", "sessionId", type, data) VALUES (${alsoBad}, ${turn!.user.id}, ${session.id}, 'tool', '[1,2]'::jsonb)`;

    const error = await parleyError(Session.part(ctx, session.id, badId), "CORRUPT");
    expect(error.message).toContain("Part");
    expect(error.message).toContain(badId);
    expect(error.details).toMatchObject({ table: "Part", id: badId });
    const error2 = await parleyError(Session.part(ctx, session.id, alsoBad), "CORRUPT");
    expect(error2.message).toContain(alsoBad);
    await parleyError(Session.message(ctx, session.id, turn!.assistant.id), "CORRUPT");

    const page = await Session.messages(ctx, session.id);
    expect(page.corrupt.map((c) => ({ table: c.table, id: c.id }))).toEqual([
      { table: "Part", id: badId },
      { table: "Part", id: alsoBad },
    ]);
    expect(page.corrupt[0]?.error).toContain("text");
    expect(page.messages.map((m) => m.info.id)).toEqual([turn!.user.id, turn!.assistant.id]);
    expect(page.messages[0]?.parts).toEqual(turn!.parts.slice(0, 1));
    expect(page.messages[1]?.parts).toEqual(turn!.parts.slice(1));
  });

  it("a corrupt message row is reported by messages() without hiding the others", async () => {
    const { ctx, projectId } = await makeTeam();
    const session = await Session.create(ctx, { projectId });
    const [turn] = await seedTurns(ctx, session.id, 1);
    const badId = Id.ascending("message");
    await testDb().message.create({ data: { id: badId, sessionId: session.id, role: "assistant", data: { cost: "free" }, timeCreated: new Date() } });
    const page = await Session.messages(ctx, session.id);
    expect(page.corrupt.map((c) => [c.table, c.id])).toEqual([["Message", badId]]);
    expect(page.messages.map((m) => m.info.id)).toEqual([turn!.user.id, turn!.assistant.id]);
    const error = await parleyError(Session.message(ctx, session.id, badId), "CORRUPT");
    expect(error.message).toContain(`Message row ${badId}`);
  });
});
