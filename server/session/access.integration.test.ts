import { describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import { parleyError, record, seedTurns, textPart, userMessage } from "../../test/fixtures";
import { Session } from ".";
import type { Part } from "./message";
import { withSettings } from "../../test/runtime";

/**
 * The session module's one authorization rule: an actor of another team cannot see or
 * change anything of a team's session, through any operation.
 */
describe("cross-team access (integration)", () => {
  it("every operation on another team's session fails with NOT_FOUND or FORBIDDEN and changes nothing", async () => {
    const owner = await makeTeam();
    const intruder = await makeTeam({ bus: owner.ctx.bus });
    const ctx = owner.ctx;
    const session = await Session.create(ctx, { projectId: owner.projectId, title: "Secret" });
    const child = await Session.create(ctx, { projectId: owner.projectId, parentId: session.id });
    const [turn] = await seedTurns(ctx, session.id, 1);
    const message = turn!.assistant;
    const part = turn!.parts[2]!;
    const before = {
      session: await Session.get(ctx, session.id),
      messages: await Session.allMessages(ctx, session.id),
    };
    const ownerEvents = record(ctx.bus, owner.teamId);
    const other = intruder.ctx;
    const deny = (work: Promise<unknown>) => parleyError(work, "NOT_FOUND", "FORBIDDEN");

    await deny(Session.get(other, session.id));
    expect((await Session.list(other, { archived: "all" })).items).toEqual([]);
    expect((await Session.list(other, { parentId: session.id })).items).toEqual([]);
    expect((await Session.list(other, { search: "Secret" })).items).toEqual([]);
    await deny(Session.children(other, session.id));
    await deny(Session.update(other, session.id, { title: "Pwned" }));
    await deny(Session.update(other, session.id, { archived: true }));
    await deny(Session.remove(other, session.id));
    await deny(Session.remove(other, child.id));
    await deny(Session.fork(other, { sessionId: session.id }));
    await deny(Session.touch(other, session.id));
    await deny(Session.share(other, session.id));
    await deny(Session.share(withSettings(other, { share: "disabled" }), session.id));
    await deny(Session.unshare(other, session.id));
    await deny(Session.messages(other, session.id));
    await deny(Session.allMessages(other, session.id));
    await deny(Session.message(other, session.id, message.id));
    await deny(Session.part(other, session.id, part.id));
    await deny(Session.updateMessage(other, { ...message, finish: "hijacked" }));
    await deny(Session.updateMessage(other, userMessage(session.id)));
    await deny(Session.updatePart(other, { ...part, text: "hijacked" } as Part));
    await deny(Session.updatePart(other, textPart(session.id, message.id, "injected")));
    await deny(Session.removeMessage(other, session.id, message.id));
    await deny(Session.removePart(other, session.id, message.id, part.id));
    await deny(Session.create(other, { projectId: owner.projectId }));
    await deny(Session.create(other, { projectId: intruder.projectId, parentId: session.id }));

    // The intruder's own session cannot reach into the owner's rows either.
    const own = await Session.create(other, { projectId: intruder.projectId });
    await deny(Session.message(other, own.id, message.id));
    await deny(Session.part(other, own.id, part.id));
    await deny(Session.removeMessage(other, own.id, message.id));
    await deny(Session.removePart(other, own.id, message.id, part.id));
    await deny(Session.updatePart(other, { ...part, sessionId: own.id } as Part));
    await deny(Session.fork(other, { sessionId: own.id, messageId: message.id }));
    // Taking over the owner's message or part ids from the intruder's own session.
    const ownUser = userMessage(own.id);
    await Session.updateMessage(other, ownUser);
    await deny(Session.updateMessage(other, { ...message, sessionId: own.id }));
    await deny(Session.updatePart(other, { ...part, sessionId: own.id, messageId: ownUser.id } as Part));

    expect(ownerEvents.events).toEqual([]);
    expect(await Session.get(ctx, session.id)).toEqual(before.session);
    expect(await Session.allMessages(ctx, session.id)).toEqual(before.messages);
    expect(await testDb().share.count({ where: { sessionId: session.id } })).toBe(0);
    expect((await Session.children(ctx, session.id)).map((s) => s.id)).toEqual([child.id]);
  });
});
