import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Project } from "../server/project";
import { Session } from "../server/session";
import { type TestApp, openApp } from "./app";
import { type Browser, signUp } from "./auth";

/**
 * A NUL character in what a member types (PostgreSQL's text and jsonb cannot hold it):
 * through the real tRPC Route Handler, a prompt, a title or a project name with one is
 * refused with a 400 that says why, and nothing is stored.
 */

describe("NUL in user input (integration, over HTTP)", () => {
  let app: TestApp;
  let alice: Browser;
  let projectId: string;
  let sessionId: string;
  let ctx: Awaited<ReturnType<typeof import("../server/context")["memberContext"]>>;

  beforeAll(async () => {
    app = await openApp("nul", (folder) => ({
      PARLEY_DATA_DIR: path.join(folder, "data"),
      PARLEY_PROJECT_DIR: path.join(folder, "default"),
      PARLEY_PROJECTS_ROOT: path.join(folder, "projects"),
      PARLEY_SIGNUP: "open",
    }));
    const { memberContext } = await import("../server/context");
    const { getAuth } = await import("../server/auth/instance");
    alice = await signUp(await getAuth(), "alice@nul.test", "Alice");
    ctx = await memberContext(alice.headers);
    const [project] = await Project.list(ctx);
    projectId = project!.id;
    sessionId = (await Session.create(ctx, { projectId, title: "clean" })).id;
  });
  afterAll(async () => {
    await app?.close();
  });

  const refused = (res: { status: number; text: string }, what: string) => {
    expect(res.status, res.text).toBe(400);
    expect(res.text).toContain(`${what} must not contain the NUL character`);
  };

  it("a prompt with NUL gets a 400 naming the problem, and no message is written", async () => {
    const res = await app.call("session.prompt", { sessionId, parts: [{ type: "text", text: "a\u0000b" }], noReply: true }, alice.headers);
    refused(res, "a message");
    expect(await Session.allMessages(ctx, sessionId)).toEqual([]);
    // The same prompt without the NUL is stored.
    const ok = await app.call("session.prompt", { sessionId, parts: [{ type: "text", text: "ab" }], noReply: true }, alice.headers);
    expect(ok.status, ok.text).toBe(200);
    expect(await Session.allMessages(ctx, sessionId)).toHaveLength(1);
  });

  it("a title with NUL gets a 400 on create and on rename, and nothing changes", async () => {
    const before = (await Session.list(ctx, { projectId })).items.length;
    refused(await app.call("session.create", { projectId, title: "bad\u0000title" }, alice.headers), "a title");
    expect((await Session.list(ctx, { projectId })).items).toHaveLength(before);
    refused(await app.call("session.update", { sessionId, patch: { title: "bad\u0000title" } }, alice.headers), "a title");
    expect((await Session.get(ctx, sessionId)).title).toBe("clean");
  });

  it("a project name, a search and a permission answer with NUL are refused too", async () => {
    refused(await app.call("project.create", { directory: "x", name: "n\u0000" }, alice.headers), "a project name");
    refused(await app.call("session.list", { search: "a\u0000" }, alice.headers), "a search");
    const reply = await app.call(
      "permission.reply",
      { requestId: "per_0000000000000000aaaaaaaaaaaaaa", reply: "reject", feedback: "no\u0000" },
      alice.headers,
    );
    refused(reply, "feedback");
  });
});
