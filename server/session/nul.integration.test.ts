import { z } from "zod";
import { afterAll, describe, expect, it } from "vitest";
import { ABORTED_TOOL } from "../../lib/part-lifecycle";
import { makeTeam } from "../../test/db";
import { offlineReply } from "../../test/fixtures";
import { closeLocks, finish, offlineSessionEach, script, scriptedServices, settled, streamedText } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import * as Id from "../id";
import { NUL_REPLACEMENT } from "../nul";
import { define } from "../tool/tool";
import { withActor } from "../services";
import type { AssistantMessage, PartOf } from "./message";
import { RESULT_NOT_STORED } from "./processor";
import { closeStrandedTools, recover } from "./recovery";
import * as Store from "./store";
import { Session } from ".";

/**
 * NUL bytes (SPEC §3; PostgreSQL's text and jsonb cannot hold U+0000): a tool whose output
 * has one — the built-in offline model running `printf 'a\0b'` in the real sandbox —
 * completes with each NUL stored as U+FFFD, and the turn ends normally. Tools left
 * running in an idle session (what such output used to leave behind) are closed by the
 * recovery a server runs at start.
 */


describe("NUL bytes in what tools return (integration, real sandbox)", () => {
  const nul = offlineSessionEach("nul");

  async function idle() {
    await settled(nul.ctx, nul.sessionId, 20_000);
  }

  it("a command printing NUL completes, its output stored with U+FFFD, and the session goes idle", async () => {
    const { ctx, sessionId } = nul;
    await Session.prompt(ctx, { sessionId, parts: [{ type: "text", text: "run `printf 'a\\0b'`" }] });
    await idle();
    const history = await Session.allMessages(ctx, sessionId);
    const assistants = history.filter((m) => m.info.role === "assistant");
    expect(assistants.length).toBeGreaterThan(0);
    for (const m of assistants) {
      const info = m.info as AssistantMessage;
      expect(info.error, JSON.stringify(info.error)).toBeUndefined();
      expect(info.time.completed).toBeDefined();
    }
    const tools = history.flatMap((m) => m.parts).filter((p): p is PartOf<"tool"> => p.type === "tool");
    expect(tools).toHaveLength(1);
    const state = tools[0]!.state;
    expect(state.status, JSON.stringify(state)).toBe("completed");
    if (state.status !== "completed") return;
    expect(state.output).toContain(`a${NUL_REPLACEMENT}b`);
    expect(JSON.stringify(state)).not.toContain("\\u0000");
    expect((await Session.get(ctx, sessionId)).status).toEqual({ type: "idle" });
  });

  it("recovery at start closes a tool left running in an idle session", async () => {
    const { ctx, sessionId, dir } = nul;
    const now = Date.now();
    const assistant = offlineReply(sessionId, Id.ascending("message"), dir, {
      providerId: "offline",
      modelId: "parley-offline",
      error: { name: "UnknownError", message: "the turn failed" },
      time: { created: now, completed: now },
    });
    const tool: PartOf<"tool"> = {
      id: Id.ascending("part"),
      sessionId,
      messageId: assistant.id,
      type: "tool",
      callId: "call_stranded",
      tool: "bash",
      state: { status: "running", input: { command: "printf 'a\\0b'" }, time: { start: now } },
    };
    await Store.writeMessage(ctx, (await Session.get(ctx, sessionId)).teamId, assistant);
    await Store.writePart(ctx, (await Session.get(ctx, sessionId)).teamId, tool);
    expect((await Session.get(ctx, sessionId)).status).toEqual({ type: "idle" });

    // The periodic pass leaves it (it only looks at sessions left busy); the pass at start
    // closes it. (Only this file's session: the database is shared with other test files.)
    expect(await recover(ctx, { skip: (id) => id !== sessionId })).toEqual([]);
    expect(await closeStrandedTools(ctx, { skip: (id) => id !== sessionId })).toEqual([sessionId]);
    const part = await Session.part(ctx, sessionId, tool.id);
    expect(part.type === "tool" ? part.state : undefined).toMatchObject({ status: "error", error: ABORTED_TOOL, input: tool.state.input });
    const message = (await Session.message(ctx, sessionId, assistant.id)).info as AssistantMessage;
    // The message keeps its own error and completion time.
    expect(message.error).toEqual(assistant.error);
    expect(message.time.completed).toBe(now);
    expect(await closeStrandedTools(ctx, { skip: (id) => id !== sessionId })).toEqual([]);
  });
});

describe("a tool result the database refuses (integration, scripted model)", () => {
  afterAll(closeLocks);

  it("becomes a tool error and the turn goes on", async () => {
    // A lone surrogate: JSON can say it, PostgreSQL's jsonb refuses it.
    const unstorable = define({
      id: "unstorable",
      description: "returns what cannot be stored",
      parameters: z.object({}),
      execute: async () => ({ title: "unstorable", output: "half a pair: \ud800", metadata: {} }),
    });
    const model = script([
      [{ type: "tool-call", toolCallId: "u", toolName: "unstorable", input: "{}" }, finish("tool-calls")],
      [...streamedText("t", "done"), finish("stop")],
    ]);
    const deps = scriptedServices(new Bus(), model, { tools: [unstorable] });
    const { ctx, projectId } = await makeTeam({ services: deps });
    const session = await Session.create(ctx, { projectId });
    await Session.prompt(withActor(deps, ctx.actor), { sessionId: session.id, parts: [{ type: "text", text: "go" }] });
    await deps.runners.idle(session.id);
    const history = await Session.allMessages(ctx, session.id);
    const tool = history.flatMap((m) => m.parts).find((p): p is PartOf<"tool"> => p.type === "tool");
    expect(tool?.state).toMatchObject({ status: "error" });
    expect(tool?.state.status === "error" ? tool.state.error : "").toContain(RESULT_NOT_STORED);
    // The model was answered (with the error) and finished the turn.
    const assistants = history.flatMap((m) => (m.info.role === "assistant" ? [m.info] : []));
    expect(assistants.map((a) => a.finish)).toEqual(["tool-calls", "stop"]);
    for (const a of assistants) expect(a.error, JSON.stringify(a.error)).toBeUndefined();
    expect((await Session.get(ctx, session.id)).status).toEqual({ type: "idle" });
  });
});
