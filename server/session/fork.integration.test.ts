import { describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import { parleyError, record, seedTurns } from "../../test/fixtures";
import * as Id from "../id";
import { Session } from ".";
import type { WithParts } from "./message";

/** A message or part with the ids that fork replaces taken out, to compare content. */
function content(history: WithParts[]) {
  return history.map((m) => {
    const { id: _id, sessionId: _sid, ...info } = m.info;
    const rest = info.role === "assistant" ? (({ parentId: _p, ...r }) => r)(info) : info;
    return {
      info: rest,
      parts: m.parts.map(({ id: _pid, sessionId: _psid, messageId: _mid, ...p }) => p),
    };
  });
}

describe("Session.fork (integration)", () => {
  it("copies every message and part under fresh ascending ids, remapping assistant parentId", async () => {
    const team = await makeTeam();
    const ctx = team.ctx;
    const rules = [{ permission: "edit", pattern: "*", action: "ask" as const }];
    const source = await Session.create(ctx, { projectId: team.projectId, title: "Investigate", permission: rules });
    await seedTurns(ctx, source.id, 3);
    await Session.share(ctx, source.id);
    const original = await Session.allMessages(ctx, source.id);

    const events = record(ctx.bus, team.teamId);
    const forked = await Session.fork(ctx, { sessionId: source.id });
    expect(events.names()).toEqual(["session.created", "session.updated"]);

    expect(forked.id).not.toBe(source.id);
    expect(forked.title).toBe("Investigate (fork #1)");
    expect(forked.parentId).toBeUndefined();
    expect(forked.permission).toEqual(rules);
    expect(forked.share).toBeUndefined();
    expect(forked.projectId).toBe(source.projectId);

    const copy = await Session.allMessages(ctx, forked.id);
    expect(copy).toHaveLength(original.length);
    expect(content(copy)).toEqual(content(original));

    const sourceIds = new Set([...original.map((m) => m.info.id), ...original.flatMap((m) => m.parts.map((p) => p.id))]);
    const copyMessageIds = copy.map((m) => m.info.id);
    const copyPartIds = copy.flatMap((m) => m.parts.map((p) => p.id));
    for (const id of [...copyMessageIds, ...copyPartIds]) expect(sourceIds.has(id)).toBe(false);
    // Same order as the source, ids ascending.
    expect([...copyMessageIds].sort()).toEqual(copyMessageIds);
    expect([...copyPartIds].sort()).toEqual(copyPartIds);

    for (const [i, m] of copy.entries()) {
      expect(m.info.sessionId).toBe(forked.id);
      for (const p of m.parts) {
        expect(p.sessionId).toBe(forked.id);
        expect(p.messageId).toBe(m.info.id);
      }
      if (m.info.role === "assistant") {
        // The user message it answers is the copied one just before it.
        expect(m.info.parentId).toBe(copy[i - 1]?.info.id);
      }
    }
    // The source is unchanged.
    expect(await Session.allMessages(ctx, source.id)).toEqual(original);
  });

  it("copies only the messages before messageId", async () => {
    const { ctx, projectId } = await makeTeam();
    const source = await Session.create(ctx, { projectId, title: "x" });
    const turns = await seedTurns(ctx, source.id, 3);
    const cut = turns[1]!.user.id;
    const forked = await Session.fork(ctx, { sessionId: source.id, messageId: cut });
    const copy = await Session.allMessages(ctx, forked.id);
    const original = await Session.allMessages(ctx, source.id);
    const before = original.filter((m) => m.info.id < cut);
    expect(before).toHaveLength(2);
    expect(content(copy)).toEqual(content(before));
    expect(await testDb().part.count({ where: { sessionId: forked.id } })).toBe(5);

    // Forking at the first message copies nothing.
    const empty = await Session.fork(ctx, { sessionId: source.id, messageId: turns[0]!.user.id });
    expect(await Session.allMessages(ctx, empty.id)).toEqual([]);

    await parleyError(Session.fork(ctx, { sessionId: source.id, messageId: Id.ascending("message") }), "NOT_FOUND");
    await parleyError(Session.fork(ctx, { sessionId: source.id, messageId: "prt_x" }), "INVALID");
  });

  it("increments an existing fork suffix and does not copy revert or summary", async () => {
    const { ctx, projectId } = await makeTeam();
    const source = await Session.create(ctx, { projectId, title: "x (fork #1)" });
    const turns = await seedTurns(ctx, source.id, 1);
    await testDb().session.update({
      where: { id: source.id },
      data: { revert: { messageId: turns[0]!.user.id }, summaryAdditions: 3, summaryDeletions: 1, summaryFiles: 1 },
    });
    const withExtras = await Session.get(ctx, source.id);
    expect(withExtras.revert).toEqual({ messageId: turns[0]!.user.id });
    expect(withExtras.summary).toEqual({ additions: 3, deletions: 1, files: 1 });

    const forked = await Session.fork(ctx, { sessionId: source.id });
    expect(forked.title).toBe("x (fork #2)");
    expect(forked.revert).toBeUndefined();
    expect(forked.summary).toBeUndefined();
    expect(forked.permission).toBeUndefined();
    expect((await Session.fork(ctx, { sessionId: forked.id })).title).toBe("x (fork #3)");
  });

  it("forks a child session into a new root session", async () => {
    const { ctx, projectId } = await makeTeam();
    const root = await Session.create(ctx, { projectId });
    const child = await Session.create(ctx, { projectId, parentId: root.id });
    const forked = await Session.fork(ctx, { sessionId: child.id });
    expect(forked.parentId).toBeUndefined();
    expect(forked.title).toBe(`${child.title} (fork #1)`);
  });
});
