import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { closeLocks, finish, scriptedServices, recorder, script } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import { offlineModel } from "../provider/provider";
import * as Background from "./background";
import type { ResolvedModel } from "../services";
import type { Info } from "./info";
import * as Prompt from "./prompt";
import * as Title from "./title";
import { Session } from ".";

/**
 * Generated titles through prompt(): a root session with its default title gets
 * one from the small model after its first real message; child and renamed sessions do
 * not; a rename during generation wins; a failure is retried once, then a fallback.
 */

afterAll(async () => {
  await Background.settled();
  await closeLocks();
});

const ZERO = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

function small(language: ResolvedModel["language"]): ResolvedModel {
  return { ref: { providerId: "test", modelId: "small" }, language, limit: { context: 100_000, output: 1_000 }, cost: ZERO };
}

const words = (t: string): LanguageModelV4StreamPart[] => [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: t },
  { type: "text-end", id: "t" },
  finish("stop"),
];

/** A small model answering call n with replies[n] (an Error makes that call fail). */
function titles(replies: (string | Error)[]) {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      const next = replies[Math.min(call, replies.length - 1)] ?? "";
      call++;
      if (next instanceof Error) throw next;
      return { stream: convertArrayToReadableStream(words(next)) };
    },
  });
}

async function setup(smallModel: (() => ResolvedModel) | undefined) {
  const bus = new Bus();
  const deps = scriptedServices(bus, script([words("unused")]));
  deps.models.small = smallModel;
  const team = await makeTeam({ services: deps });
  /** Write a user message without running the loop (titles do not depend on it). */
  const say = async (sessionId: string, text: string) => {
    await Prompt.prompt(team.ctx, { sessionId, parts: [{ type: "text", text }], noReply: true });
    await Background.settled(sessionId);
  };
  const title = async (sessionId: string) => (await Session.get(team.ctx, sessionId)).title;
  return { bus, team, deps, say, title };
}

describe("generated titles", () => {
  it("names a root session after its first real message with the small model, and publishes it", async () => {
    // The built-in offline model understands the title request (a few words of the message).
    const s = await setup(() => small(offlineModel(0)));
    const session = await Session.create(s.team.ctx, { projectId: s.team.projectId });
    expect(Session.isDefaultTitle(session.title)).toBe(true);
    const rec = recorder(s.bus, s.team.teamId, session.id);
    await s.say(session.id, "fix the flaky login test please");
    expect(await s.title(session.id)).toBe("Fix the flaky login test please");
    const published = rec.events.filter((e) => e.name === "session.updated").map((e) => (e.payload as { info: Info }).info.title);
    expect(published.at(-1)).toBe("Fix the flaky login test please");

    // Only once: a later message leaves the title alone.
    await s.say(session.id, "and the signup test");
    expect(await s.title(session.id)).toBe("Fix the flaky login test please");
  });

  it("cleans the model's answer: <think> stripped, first line, quotes removed", async () => {
    const model = titles(['<think>\nThe user writes French.\n</think>\n\n"Corriger le cache"\nBecause…']);
    const s = await setup(() => small(model));
    const session = await Session.create(s.team.ctx, { projectId: s.team.projectId });
    await s.say(session.id, "corrige le cache s'il te plaît");
    expect(await s.title(session.id)).toBe("Corriger le cache");
    // The request: the title instructions as the system prompt, the user's text, no tools.
    const call = model.doStreamCalls[0];
    expect(JSON.stringify(call?.prompt)).toContain("Generate a short title");
    expect(JSON.stringify(call?.prompt)).toContain("corrige le cache");
    expect(call?.tools ?? []).toEqual([]);
  });

  it("never names a child session or a session the user renamed", async () => {
    const model = titles(["Should not appear"]);
    const s = await setup(() => small(model));
    const parent = await Session.create(s.team.ctx, { projectId: s.team.projectId, title: "Parent" });
    const child = await Session.create(s.team.ctx, { projectId: s.team.projectId, parentId: parent.id });
    await s.say(child.id, "a child's first message");
    expect(await s.title(child.id)).toBe(child.title);
    expect(Session.isDefaultTitle(child.title)).toBe(true);

    const renamed = await Session.create(s.team.ctx, { projectId: s.team.projectId });
    await Session.update(s.team.ctx, renamed.id, { title: "My own title" });
    await s.say(renamed.id, "hello");
    expect(await s.title(renamed.id)).toBe("My own title");
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("a rename made while the title is being generated wins", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = () => {};
    const asked = new Promise<void>((resolve) => (started = resolve));
    const model = new MockLanguageModelV4({
      doStream: async () => {
        started();
        await gate;
        return { stream: convertArrayToReadableStream(words("Generated title")) };
      },
    });
    const s = await setup(() => small(model));
    const session = await Session.create(s.team.ctx, { projectId: s.team.projectId });
    await Prompt.prompt(s.team.ctx, { sessionId: session.id, parts: [{ type: "text", text: "start" }], noReply: true });
    await asked;
    await Session.update(s.team.ctx, session.id, { title: "Renamed meanwhile" });
    release();
    await Background.settled(session.id);
    expect(await s.title(session.id)).toBe("Renamed meanwhile");
  });

  it("a message without text does not name the session; the first one with text does", async () => {
    const model = titles(["From the real message"]);
    const s = await setup(() => small(model));
    const session = await Session.create(s.team.ctx, { projectId: s.team.projectId });
    // A file-only message has no text to name the session after.
    await Prompt.prompt(s.team.ctx, {
      sessionId: session.id,
      parts: [{ type: "file", mime: "image/png", url: "data:image/png;base64,AAAA" }],
      noReply: true,
    });
    await Background.settled(session.id);
    expect(Session.isDefaultTitle(await s.title(session.id))).toBe(true);
    await s.say(session.id, "the real question");
    expect(await s.title(session.id)).toBe("From the real message");
    expect(JSON.stringify(model.doStreamCalls[0]?.prompt)).toContain("the real question");
  });

  it("uses the session's model when the engine has no small model", async () => {
    const s = await setup(undefined);
    const model = titles(["Named by the session model"]);
    s.deps.models.resolve = (ref) => ({ ...small(model), ref });
    const session = await Session.create(s.team.ctx, { projectId: s.team.projectId });
    await s.say(session.id, "anything");
    expect(await s.title(session.id)).toBe("Named by the session model");
  });
});

describe("title failures", () => {
  /** A session whose first message is written with a name on (no background title), then given back its default title. */
  async function firstMessage(s: Awaited<ReturnType<typeof setup>>, text: string) {
    const session = await Session.create(s.team.ctx, { projectId: s.team.projectId, title: "named while writing" });
    const user = await Prompt.prompt(s.team.ctx, { sessionId: session.id, parts: [{ type: "text", text }], noReply: true });
    await s.deps.db.session.update({ where: { id: session.id }, data: { title: Session.defaultTitle(false, Date.now()) } });
    return { teamId: s.team.teamId, sessionId: session.id, messageId: user.id };
  }

  it("retries once: a second attempt that works gives the title", async () => {
    const model = titles([new Error("overloaded"), "Second try"]);
    const s = await setup(() => small(model));
    const session = await Session.create(s.team.ctx, { projectId: s.team.projectId });
    await s.say(session.id, "something");
    expect(await s.title(session.id)).toBe("Second try");
    expect(model.doStreamCalls).toHaveLength(2);
  });

  it("after two failures leaves a readable fallback from the first message", async () => {
    const model = titles([new Error("down"), new Error("still down")]);
    const s = await setup(() => small(model));
    const input = await firstMessage(s, "\n  Please refactor the whole authentication module to use the new store\nthanks");
    const outcome = await Title.ensure(s.deps, input, { retryDelayMs: 0 });
    expect(outcome).toEqual({ kind: "fallback", title: "Please refactor the whole authentication module t…", written: true });
    expect(model.doStreamCalls).toHaveLength(2);
    expect(await s.title(input.sessionId)).toBe("Please refactor the whole authentication module t…");
  });

  it("an empty answer counts as a failure", async () => {
    const model = titles(["<think>only thoughts</think>", "  "]);
    const s = await setup(() => small(model));
    const input = await firstMessage(s, "short one");
    const outcome = await Title.ensure(s.deps, input, { retryDelayMs: 0 });
    expect(outcome).toEqual({ kind: "fallback", title: "short one", written: true });
  });
});
