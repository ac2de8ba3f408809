import { expect, test } from "./fixtures";
import { counted, instanceOf, reply } from "./support/provider";
import { ranAndStopped, settled, stored, textOf } from "./support/state";

/** One runner per session across instances (the run lock), and an abort that reaches it wherever it runs. */

test("an abort sent to B stops A's runner within a second: the model's stream is cut, tools aborted, the session idle", async ({ cluster }) => {
  const { id, tag } = await cluster.session("a", "Stopped from the other instance");
  // Some text, then a tool call whose input streams on and on.
  cluster.model.script(
    tag,
    reply.stream([
      { kind: "text", text: "Let me look. " },
      { kind: "tool", index: 0, id: "call_slow", name: "read", arguments: '{"filePath":' },
      { kind: "wait", ms: 60_000 },
      { kind: "tool", index: 0, arguments: '"README.md"}' },
      { kind: "finish", reason: "tool_calls" },
    ]),
  );
  const live = await cluster.api("b").live(`/api/sessions/${id}/events`);
  expect((await cluster.api("a").prompt(id, `look ${tag}`)).status).toBe(200);
  const pendingTool = () =>
    live.events.some((e) => e.name === "message.part.updated" && (e.payload as { part: { type: string; state?: { status: string } } }).part.state?.status === "pending");
  await expect.poll(pendingTool).toBe(true);
  const request = cluster.model.requests(tag)[0];
  expect(request && instanceOf(request)).toBe("a");

  const asked = Date.now();
  expect((await cluster.api("b").call("session.abort", { sessionId: id })).status).toBe(200);
  // A's runner stopped: the model's stream closed, and the session went idle (seen on B).
  await expect.poll(() => request?.ended, { timeout: 1_000, intervals: [20] }).toBeDefined();
  await expect.poll(() => ranAndStopped(live.events), { timeout: 1_000, intervals: [20] }).toBe(true);
  const stoppedIn = Date.now() - asked;
  expect(stoppedIn).toBeLessThanOrEqual(1_000);
  live.close();

  const state = await stored(cluster.db, id);
  expect(state.status).toBe("idle");
  const answer = state.messages.at(-1);
  expect(answer?.info.role === "assistant" && answer.info.error).toEqual({ name: "AbortedError", message: "Aborted by the user" });
  const tool = answer?.parts.find((p) => p.type === "tool");
  expect(tool?.type === "tool" && tool.state).toMatchObject({ status: "error", error: "Tool execution aborted" });
  expect(textOf(answer)).toBe("Let me look.");
});

test("prompts sent at once to A and B for one session make one runner; both are answered, in order", async ({ cluster }) => {
  const { id, tag } = await cluster.session("a", "Asked on both at once");
  cluster.model.script(tag, counted(20, 20), counted(20, 20));
  const answers = await Promise.all([cluster.api("a").prompt(id, `first ${tag}`), cluster.api("b").prompt(id, `second ${tag}`)]);
  expect(answers.map((a) => a.status)).toEqual([200, 200]);
  await expect.poll(async () => settled(await stored(cluster.db, id)), { timeout: 30_000 }).toBe(true);

  // One runner: the model was never asked twice at once for this session.
  const requests = cluster.model.requests(tag);
  expect(requests.length).toBeGreaterThanOrEqual(1);
  for (let i = 1; i < requests.length; i++) {
    const before = requests[i - 1]?.ended ?? Number.POSITIVE_INFINITY;
    expect(requests[i]?.time ?? 0).toBeGreaterThanOrEqual(before);
  }
  expect(requests.every((r) => r.ended !== undefined && instanceOf(r) !== undefined)).toBe(true);

  const state = await stored(cluster.db, id);
  const users = state.messages.filter((m) => m.info.role === "user");
  expect(users.map((m) => textOf(m).split(" ")[0]).sort()).toEqual(["first", "second"]);
  // Both reached the model, in the order they were stored.
  const seen = (requests.at(-1)?.body.messages ?? []).filter((m) => m.role === "user").map((m) => JSON.stringify(m.content));
  expect(seen.map((text) => (text.includes("first") ? "first" : "second"))).toEqual(users.map((m) => textOf(m).split(" ")[0]));
  // Every answer follows the message it answers, in order; the newest message is answered, without error.
  const assistants = state.messages.filter((m) => m.info.role === "assistant");
  expect(assistants.length).toBe(requests.length);
  const parents = assistants.map((m) => (m.info.role === "assistant" ? m.info.parentId : ""));
  expect([...parents].sort()).toEqual(parents);
  for (const m of assistants) expect(m.info.role === "assistant" && m.info.error).toBeFalsy();
  expect(parents.at(-1)).toBe(users.at(-1)?.info.id);
});
