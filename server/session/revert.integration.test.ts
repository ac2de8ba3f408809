import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { directoryDigest as digest, fileTree as tree } from "../../test/files";
import { parleyError, record } from "../../test/fixtures";
import { offlineServices } from "../../test/runtime";
import { asking, settled } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import type { Context } from "../services";
import type { Info } from "./info";
import type { PartOf, UserMessage, WithParts } from "./message";
import { Session } from ".";

/**
 * Revert on real directories — a plain folder and a git repository whose own .git must
 * stay byte-identical — with the built-in offline model driving the real tools (write,
 * edit, bash in the sandbox) and the real system git for snapshots.
 */

const TURNS = [
  "write 'one' to a.txt, write 'keep' to b.txt, write 'doomed' to c.txt",
  "write 'two' to new.txt, edit b.txt replacing 'keep' with 'kept', run `rm c.txt`",
  "write 'three' to a.txt then run `rm new.txt`",
];



describe.each(["a plain folder", "a git repository"])("revert in %s (integration, real git and tools)", (kind) => {
  let dir: string;
  let bus: Bus;
  let ctx: Context;
  let projectId: string;
  let sessionId: string;

  let projectDir: string;
  let workspaceId: string;

  beforeEach(async () => {
    projectDir = await fs.mkdtemp(path.join(os.tmpdir(), "parley-revert-"));
    if (kind === "a git repository") {
      execFileSync("git", ["init", "-q", projectDir]);
      await fs.writeFile(path.join(projectDir, "README.md"), "# project\n");
      execFileSync("git", ["-C", projectDir, "-c", "user.name=t", "-c", "user.email=t@t", "add", "README.md"]);
      execFileSync("git", ["-C", projectDir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
    }
    bus = new Bus();
    const team = await makeTeam({ bus, directory: projectDir, services: offlineServices(bus) });
    ctx = team.ctx;
    projectId = team.projectId;
    const session = await Session.create(ctx, { projectId, title: "revert" });
    sessionId = session.id;
    // The session's own working tree (made from the project), where its tools write.
    if (!session.workspaceId) throw new Error("a new session has a workspace");
    workspaceId = session.workspaceId;
    dir = (await ctx.workspaces.ready(workspaceId)).directory;
  });
  afterEach(async () => {
    await fs.rm(projectDir, { recursive: true, force: true });
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function idle() {
    await settled(ctx, sessionId);
  }

  async function turn(text: string): Promise<UserMessage> {
    const user = await Session.prompt(ctx, { sessionId, parts: [{ type: "text", text }] });
    await idle();
    return user;
  }

  const history = (): Promise<WithParts[]> => Session.allMessages(ctx, sessionId);
  const patchesOf = (messages: WithParts[], after: string, before?: string) =>
    messages.filter((m) => m.info.id > after && (before === undefined || m.info.id < before)).flatMap((m) => m.parts.filter((p): p is PartOf<"patch"> => p.type === "patch"));

  it("restores the files of a turn, brings them back, and the next prompt deletes what it hid", async () => {
    const gitBefore = kind === "a git repository" ? digest(path.join(projectDir, ".git")) : undefined;
    const beforeTurn: Record<string, string>[] = [];
    const users: UserMessage[] = [];
    for (const text of TURNS) {
      beforeTurn.push(tree(dir));
      users.push(await turn(text));
    }
    const [, second, third] = users;
    if (!second || !third) throw new Error("three turns expected");
    const after = tree(dir);
    const base = kind === "a git repository" ? { "README.md": "# project\n" } : {};
    expect(after).toEqual({ ...base, "a.txt": "three\n", "b.txt": "kept\n" });
    for (const message of await history()) {
      if (message.info.role === "assistant") expect(message.info.error, JSON.stringify(message.info.error)).toBeUndefined();
    }

    // Patch parts list exactly the files each turn changed; the user message keeps its turn's diff.
    const all = await history();
    expect(patchesOf(all, second.id, third.id).flatMap((p) => p.files).sort()).toEqual(["b.txt", "c.txt", "new.txt"]);
    expect(patchesOf(all, third.id).flatMap((p) => p.files).sort()).toEqual(["a.txt", "new.txt"]);
    const secondUser = all.find((m) => m.info.id === second.id)?.info;
    expect(secondUser?.role === "user" ? secondUser.summary?.diffs.map((d) => d.file) : undefined).toEqual(["b.txt", "c.txt", "new.txt"]);

    // The session's summary is git's numstat between its first and last snapshots.
    const steps = all.flatMap((m) => m.parts);
    const first = steps.find((p): p is PartOf<"step-start"> => p.type === "step-start" && p.snapshot !== undefined)?.snapshot;
    const last = steps.findLast((p): p is PartOf<"step-finish"> => p.type === "step-finish" && p.snapshot !== undefined)?.snapshot;
    if (!first || !last) throw new Error("snapshots expected");
    const numstat = execFileSync("git", ["--git-dir", path.join(ctx.snapshots.root, workspaceId), "diff-tree", "-r", "--numstat", first, last], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => line.split("\t"));
    const info = await Session.get(ctx, sessionId);
    expect(info.summary).toMatchObject({
      additions: numstat.reduce((sum, [a]) => sum + Number(a), 0),
      deletions: numstat.reduce((sum, [, d]) => sum + Number(d), 0),
      files: numstat.length,
    });
    expect(info.summary?.files).toBe(2);

    // Revert to turn 2: the tree as it was before turn 2; its messages hidden, not deleted.
    const messagesBefore = (await history()).length;
    const reverted: Info = await Session.revert(ctx, { sessionId, messageId: second.id });
    expect(reverted.revert).toMatchObject({ messageId: second.id, snapshot: last });
    expect(reverted.revert?.diff).toContain("--- a/c.txt");
    expect(tree(dir)).toEqual(beforeTurn[1]);
    expect((await history()).length).toBe(messagesBefore);

    // Unrevert: the tree as before the revert.
    const restored = await Session.unrevert(ctx, { sessionId });
    expect(restored.revert).toBeUndefined();
    expect(tree(dir)).toEqual(after);

    // Revert again, then prompt: the hidden messages are deleted, with events.
    await Session.revert(ctx, { sessionId, messageId: second.id });
    const hidden = (await history()).filter((m) => m.info.id >= second.id).map((m) => m.info.id);
    const events = record(bus, ctx.actor.teamId, sessionId);
    await turn("write 'fresh' to d.txt");
    const removed = events.events.filter((e) => e.name === "message.removed").map((e) => (e.payload as { messageId: string }).messageId);
    expect(removed.sort()).toEqual(hidden.sort());
    expect((await history()).some((m) => hidden.includes(m.info.id))).toBe(false);
    expect((await Session.get(ctx, sessionId)).revert).toBeUndefined();
    expect(tree(dir)).toEqual({ ...beforeTurn[1], "d.txt": "fresh\n" });

    if (gitBefore !== undefined) expect(digest(path.join(projectDir, ".git"))).toBe(gitBefore);
  });

  it("refuses to revert or unrevert while the session runs", async () => {
    const user = await turn("write 'one' to a.txt");
    const hanging = await Session.prompt(ctx, { sessionId, parts: [{ type: "text", text: "hang" }] });
    // Aborted below only once the model is being asked (see `asking`).
    await asking(ctx, sessionId, hanging.id);
    const error = await parleyError(Session.revert(ctx, { sessionId, messageId: user.id }), "BUSY");
    expect(error.message).toMatch(/running/);
    await parleyError(Session.unrevert(ctx, { sessionId }), "BUSY");
    await Session.abort(ctx, sessionId);
    await idle();
    expect(tree(dir)).toMatchObject({ "a.txt": "one\n" });
  });

  it("regenerates a reply and edits a message: the files go back first, the message is sent again", async () => {
    await turn("write 'one' to a.txt");
    const second = await turn("write 'two' to b.txt");
    const again = await Session.rerun(ctx, { sessionId, messageId: second.id });
    await idle();
    expect(again.id).not.toBe(second.id);
    const users = (await history()).filter((m) => m.info.role === "user");
    expect(users.map((m) => m.parts.find((p) => p.type === "text")?.type === "text" && (m.parts.find((p) => p.type === "text") as PartOf<"text">).text)).toEqual([
      "write 'one' to a.txt",
      "write 'two' to b.txt",
    ]);
    const edited = await Session.rerun(ctx, { sessionId, messageId: again.id, text: "write 'edited' to c.txt" });
    await idle();
    const texts = (await history()).filter((m) => m.info.id >= edited.id).flatMap((m) => m.parts.filter((p): p is PartOf<"text"> => p.type === "text").map((p) => p.text));
    expect(texts[0]).toBe("write 'edited' to c.txt");
    const base = kind === "a git repository" ? { "README.md": "# project\n" } : {};
    expect(tree(dir)).toEqual({ ...base, "a.txt": "one\n", "c.txt": "edited\n" });
    await parleyError(Session.rerun(ctx, { sessionId, messageId: (await history()).findLast((m) => m.info.role === "assistant")?.info.id ?? "" }), "INVALID", "NOT_FOUND");
  });
});
