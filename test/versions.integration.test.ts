import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Info } from "../server/session/info";
import type { UserMessage, WithParts } from "../server/session/message";
import type { VersionPoint } from "../server/session/versions";
import { memberCalls, trpcData } from "./app";
import { scriptedOpenAI } from "./suite";
import { twoTeamsSuite } from "./two-teams";
import type { Browser } from "./auth";
import { type FakeReply, type RecordedRequest, reply, tagOf, toolCallSteps } from "./fake-openai";
import { settled } from "./session-harness";

/**
 * Versions of a conversation (issue 33) as members use them, through the real Route
 * Handlers with real sign-in cookies, a fake OpenAI-compatible provider driving the real
 * write tool, and the system git for snapshots: a regenerate and an edit keep the earlier
 * version, switching brings back its messages and its files, the model's next turn sees
 * the current version only, as do search and the share page; switching is refused while
 * the session runs, to a member of another team, and to the loser of two members racing.
 */

const MODEL = { providerId: "compatible", modelId: "gpt-test" };

describe("versions of a turn (integration, through HTTP)", () => {
  const { fake, scripts } = scriptedOpenAI();
  // Bob signs up without an invitation: a team of his own.
  const teams = twoTeamsSuite("versions", () => ({ OPENAI_BASE_URL: `${fake.url}/v1` }));
  const { call, ok: data } = memberCalls(() => teams.app);
  const idle = (sessionId: string) => settled(teams.app.rt.services, sessionId, 30_000);

  /** A turn writing `content` to f.txt, then answering `answer`. */
  const writes = (content: string, answer: string): FakeReply[] => [
    reply.stream([...toolCallSteps({ id: `w-${answer}`, name: "write", pieces: [JSON.stringify({ filePath: "f.txt", content })] }), { kind: "finish", reason: "tool_calls" }, { kind: "usage", usage: { prompt: 10, completion: 5 } }]),
    reply.text(answer),
  ];

  async function session(title: string): Promise<{ id: string; dir: string }> {
    const info = await data<Info>("session.create", { projectId: teams.projectId, title }, teams.ann);
    return { id: info.id, dir: info.directory };
  }

  const prompt = (sessionId: string, text: string) => data<UserMessage>("session.prompt", { sessionId, parts: [{ type: "text", text }], model: MODEL }, teams.ann);
  const versions = (sessionId: string, who: Browser = teams.ann) => data<VersionPoint[]>("session.versions", { sessionId }, who);
  const fileOf = (dir: string) => readFileSync(path.join(dir, "f.txt"), "utf8");

  async function texts(sessionId: string): Promise<string[]> {
    const { messages } = await data<{ messages: WithParts[] }>("message.page", { sessionId, limit: 200 }, teams.ann);
    return messages.flatMap((m) => m.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])));
  }

  const sentText = (request: RecordedRequest | undefined) => JSON.stringify(request?.body.messages ?? []);

  it("a regenerate keeps version 1 of 2 with its text and files; switching back and forth restores both; the next turn's model history holds the current version only", async () => {
    const { id, dir } = await session("regenerate");
    scripts.set("regen", [...writes("one\n", "wrote ONE-ANSWER"), ...writes("two\n", "wrote TWO-ANSWER")]);
    const first = await prompt(id, "[regen] write f.txt");
    await idle(id);
    expect(fileOf(dir)).toBe("one\n");
    expect(await versions(id)).toEqual([]);

    await data<UserMessage>("session.rerun", { sessionId: id, messageId: first.id }, teams.ann);
    await idle(id);
    expect(fileOf(dir)).toBe("two\n");
    const [point, ...others] = await versions(id);
    expect(others).toEqual([]);
    expect(point?.current).toBe(2);
    expect(point?.versions).toHaveLength(2);
    expect(point?.baseId).toBeNull();
    expect(point?.versions[0]?.preview).toBe("[regen] write f.txt");
    expect(await texts(id)).toContain("wrote TWO-ANSWER");
    expect(await texts(id)).not.toContain("wrote ONE-ANSWER");

    // Back to version 1: its reply and its file.
    const older = point?.versions[0]?.id;
    expect((await call<Info>("session.switchVersion", { sessionId: id, versionId: older }, teams.ann)).status).toBe(200);
    expect(fileOf(dir)).toBe("one\n");
    expect(await texts(id)).toContain("wrote ONE-ANSWER");
    expect(await texts(id)).not.toContain("wrote TWO-ANSWER");
    const [switched] = await versions(id);
    expect(switched?.current).toBe(1);
    expect(switched?.versions).toHaveLength(2);

    // Search finds the current version's words only, and the share page shows it only.
    const search = (query: string) => data<{ items: { session: { id: string } }[] }>("search.sessions", { query }, teams.ann);
    expect((await search("ONE-ANSWER")).items.map((s) => s.session.id)).toContain(id);
    expect((await search("TWO-ANSWER")).items.map((s) => s.session.id)).not.toContain(id);
    const shared = await data<Info>("session.share", { sessionId: id }, teams.ann);
    const shareId = shared.share?.url.split("/").pop();
    const page = await trpcData<{ messages: { messages: WithParts[] } }>(teams.app, "share.page", { shareId }, new Headers());
    const shownText = JSON.stringify(page.messages.messages);
    expect(shownText).toContain("wrote ONE-ANSWER");
    expect(shownText).not.toContain("wrote TWO-ANSWER");

    // The next turn: the model is sent version 1's exchange, not version 2's.
    scripts.set("regen", [reply.text("third answer")]);
    const before = fake.requests.length;
    await prompt(id, "[regen] and now?");
    await idle(id);
    const next = fake.requests.slice(before).find((r) => tagOf(r) === "regen");
    expect(sentText(next)).toContain("wrote ONE-ANSWER");
    expect(sentText(next)).not.toContain("wrote TWO-ANSWER");

    // Version 2 is still reachable, files included (the third turn is part of version 1 now).
    const [again] = await versions(id);
    const newer = again?.versions.find((v) => v.id !== null)?.id;
    expect((await call<Info>("session.switchVersion", { sessionId: id, versionId: newer }, teams.ann)).status).toBe(200);
    expect(fileOf(dir)).toBe("two\n");
    expect(await texts(id)).toEqual(expect.arrayContaining(["[regen] write f.txt", "wrote TWO-ANSWER"]));
    expect(await texts(id)).not.toContain("third answer");
  });

  it("an edit & resend keeps the earlier prompt as a version, with its files", async () => {
    const { id, dir } = await session("edit");
    scripts.set("edit", [...writes("first\n", "answer to the first"), ...writes("second\n", "answer to the edit")]);
    const first = await prompt(id, "[edit] write f.txt please");
    await idle(id);
    await data<UserMessage>("session.rerun", { sessionId: id, messageId: first.id, text: "[edit] write f.txt differently" }, teams.ann);
    await idle(id);
    expect(fileOf(dir)).toBe("second\n");
    expect(await texts(id)).toContain("[edit] write f.txt differently");
    const [point] = await versions(id);
    expect(point?.versions.map((v) => v.preview)).toEqual(["[edit] write f.txt please", ""]);
    expect(point?.current).toBe(2);

    await data<Info>("session.switchVersion", { sessionId: id, versionId: point?.versions[0]?.id }, teams.ann);
    expect(fileOf(dir)).toBe("first\n");
    const shown = await texts(id);
    expect(shown).toEqual(["[edit] write f.txt please", "answer to the first"]);

    // Removing the session removes its versions.
    expect(await teams.app.rt.services.db.messageVersion.count({ where: { sessionId: id } })).toBe(1);
    await data<unknown>("session.remove", { sessionId: id }, teams.ann);
    expect(await teams.app.rt.services.db.messageVersion.count({ where: { sessionId: id } })).toBe(0);
  });

  it("a version made inside another version is listed only while its point is in the conversation", async () => {
    const { id } = await session("nested");
    scripts.set("nest", [reply.text("a1"), reply.text("a1 again"), reply.text("b1"), reply.text("b1 edited")]);
    const first = await prompt(id, "[nest] one");
    await idle(id);
    await data<UserMessage>("session.rerun", { sessionId: id, messageId: first.id }, teams.ann);
    await idle(id);
    const second = await prompt(id, "[nest] two");
    await idle(id);
    await data<UserMessage>("session.rerun", { sessionId: id, messageId: second.id, text: "[nest] two, edited" }, teams.ann);
    await idle(id);
    expect(await texts(id)).toEqual(["[nest] one", "a1 again", "[nest] two, edited", "b1 edited"]);
    const points = await versions(id);
    expect(points.map((p) => [p.current, p.versions.length])).toEqual([
      [2, 2],
      [2, 2],
    ]);
    // Back to the first answer: the edit made after it is not part of that version.
    await data<Info>("session.switchVersion", { sessionId: id, versionId: points[0]?.versions[0]?.id }, teams.ann);
    expect(await texts(id)).toEqual(["[nest] one", "a1"]);
    const [only, ...none] = await versions(id);
    expect(none).toEqual([]);
    expect(only?.current).toBe(1);
    // A version whose point is not shown cannot be switched to.
    const hidden = await call<Info>("session.switchVersion", { sessionId: id, versionId: points[1]?.versions[0]?.id }, teams.ann);
    expect(hidden.status).toBe(400);
    // Forward again: the edit and its own versions are back.
    await data<Info>("session.switchVersion", { sessionId: id, versionId: only?.versions[1]?.id }, teams.ann);
    expect(await texts(id)).toEqual(["[nest] one", "a1 again", "[nest] two, edited", "b1 edited"]);
    expect((await versions(id)).map((p) => [p.current, p.versions.length])).toEqual([
      [2, 2],
      [2, 2],
    ]);
  });

  it("refuses a switch while the session runs, to another team's member, and to the second of two members racing", async () => {
    const { id } = await session("refusals");
    scripts.set("busy", [reply.text("v1"), reply.text("v2")]);
    const first = await prompt(id, "[busy] hello");
    await idle(id);
    await data<UserMessage>("session.rerun", { sessionId: id, messageId: first.id }, teams.ann);
    await idle(id);
    const [point] = await versions(id);
    const older = point?.versions[0]?.id;

    // Another team: neither the list nor the switch.
    const listed = await call<VersionPoint[]>("session.versions", { sessionId: id }, teams.bob);
    expect(listed.status).toBe(404);
    const foreign = await call<Info>("session.switchVersion", { sessionId: id, versionId: older }, teams.bob);
    expect(foreign.status).toBe(404);
    expect(await texts(id)).toContain("v2");

    // While a turn runs: BUSY, with a message that says why.
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    scripts.set("busy", [reply.stream([{ kind: "text", text: "held" }, { kind: "gate", until: gate }, { kind: "finish", reason: "stop" }])]);
    await prompt(id, "[busy] hold on");
    const running = await call<Info>("session.switchVersion", { sessionId: id, versionId: older }, teams.ann);
    expect(running.status).toBe(409);
    expect(running.message).toMatch(/running/);
    release();
    await idle(id);

    // Two members switching at once: one wins, the other is told (BUSY or the version gone), never both.
    const [a, b] = await Promise.all([
      call<Info>("session.switchVersion", { sessionId: id, versionId: older }, teams.ann),
      call<Info>("session.switchVersion", { sessionId: id, versionId: older }, teams.ann),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, expect.any(Number)]);
    expect([a.status, b.status].filter((s) => s === 200)).toHaveLength(1);
    expect([409, 404]).toContain([a.status, b.status].find((s) => s !== 200));
    expect(await texts(id)).toEqual(["[busy] hello", "v1"]);
  });
});
