import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { afterAll, describe, expect, it } from "vitest";
import { makeTeam, testDb } from "../../test/db";
import { closeLocks, finish, recorder, script, scriptedServices } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import type { Db } from "../db/client";
import { withActor } from "../services";
import { start } from "./loop";
import * as Prompt from "./prompt";
import { Session } from ".";

/**
 * A loop that throws before it stores an answer (a corrupt row, a database refusing writes)
 * must not start again and again: the turn fails once with its error stored, and when even
 * that cannot be stored, the runner tries again a bounded number of times, waiting longer
 * each time.
 */

afterAll(closeLocks);

const answer: LanguageModelV4StreamPart[] = [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "never sent" },
  { type: "text-end", id: "t" },
  finish("stop"),
];

/** A session with one stored, unanswered user message whose part row is then corrupted. */
async function corruptSession() {
  const bus = new Bus();
  const { ctx, projectId } = await makeTeam({ bus });
  const deps = scriptedServices(bus, script([answer, answer, answer]));
  const session = await Session.create(ctx, { projectId });
  const user = await Prompt.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "hello" }], noReply: true });
  await testDb().part.updateMany({ where: { messageId: user.id }, data: { data: { type: "text", text: 42 } } });
  const rec = recorder(bus, ctx.actor.teamId, session.id);
  const busy = () => rec.statuses().filter((status) => status.type === "busy").length;
  return { ctx, deps, session, user, rec, busy };
}

/** The test database, with every message write (Store.writeMessage's upsert) rejected. */
function refusingMessageWrites(): Db {
  const db = testDb();
  const execute = (sql: TemplateStringsArray, ...values: unknown[]) =>
    sql.join("?").includes('INSERT INTO "Message"') ? Promise.reject(new Error("message write refused")) : db.$executeRaw(sql, ...values);
  return new Proxy(db, { get: (target, prop, receiver) => (prop === "$executeRaw" ? execute : Reflect.get(target, prop, receiver)) });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a loop that fails before it stores an answer", () => {
  it("fails the turn once: an assistant message with the error answers the message, and no new run starts", async () => {
    const t = await corruptSession();
    await start(t.deps, t.ctx.actor.teamId, t.session.id);
    await t.deps.runners.idle(t.session.id);
    await sleep(500);
    expect(t.busy()).toBe(1);
    expect(t.deps.runners.get(t.session.id)).toBeUndefined();
    const rows = await testDb().message.findMany({ where: { sessionId: t.session.id }, orderBy: { id: "asc" } });
    expect(rows.map((r) => r.role)).toEqual(["user", "assistant"]);
    const data = rows[1]?.data as { parentId?: string; error?: { name?: string; message?: string } };
    expect(data.parentId).toBe(t.user.id);
    expect(data.error?.name).toBe("UnknownError");
    expect(data.error?.message).toMatch(/^the turn could not run: /);
    expect(t.rec.statuses().at(-1)).toEqual({ type: "idle" });
  });

  it("when the error cannot be stored either, tries again a few times with growing waits, not in a tight loop", async () => {
    const t = await corruptSession();
    t.deps.db = refusingMessageWrites();
    await start(t.deps, t.ctx.actor.teamId, t.session.id);
    // Runs at 0, then after 0.5 s and 1 s more: three in the first 2 s (thousands without the backoff).
    await sleep(2_000);
    const runs = t.busy();
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(runs).toBeLessThanOrEqual(3);
    // The remaining runs at 3.5 s and 7.5 s; the fifth failure in a row gives up.
    await sleep(6_500);
    await t.deps.runners.idle(t.session.id);
    const total = t.busy();
    expect(total).toBe(5);
    await sleep(1_000);
    expect(t.busy()).toBe(total);
    expect(t.deps.runners.get(t.session.id)).toBeUndefined();
  }, 20_000);
});
