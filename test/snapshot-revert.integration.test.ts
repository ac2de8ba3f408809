import { spawn } from "node:child_process";
import { existsSync, mkdirSync, promises as fs, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Info } from "../server/session/info";
import type { Part, PartOf, UserMessage, WithParts } from "../server/session/message";
import type { TurnDiff } from "../server/session/summary";
import { memberCalls, projectAppEnv } from "./app";
import { appSuite, scriptedOpenAI } from "./suite";
import type { Browser } from "./auth";
import { annInvitesBob } from "./two-teams";
import { type FakeReply, type StreamStep, reply, toolCallSteps } from "./fake-openai";
import { gate, holdCalls } from "./gate";
import { settled } from "./session-harness";

/**
 * Snapshots and revert as members use them, through the real Route Handlers with real
 * sign-in cookies, a fake OpenAI-compatible provider driving the real tools, and the
 * system git: a symlinked folder (N9), a folder swapped for a link while a revert runs
 * (N4), a session's patch with another member's session writing meanwhile (N7), and a
 * prompt sent while a revert runs (D1).
 */

/** A process swapping work/ for a link to argv[1] and back, without pause (each step may fail when a revert just changed the names). */
const SWAPPER = `
const fs = require("node:fs");
const step = (f) => { try { f(); } catch { /* the name changed under it: go on */ } };
for (;;) {
  step(() => fs.renameSync("work", "work-real"));
  step(() => fs.symlinkSync(process.argv[1], "work"));
  step(() => fs.unlinkSync("work"));
  step(() => fs.renameSync("work-real", "work"));
}
`;

const MODEL = { providerId: "compatible", modelId: "gpt-test" };

describe("snapshots and revert (integration, through HTTP)", () => {
  /** Replies per tag (a word in the session's first message), in order; each request takes the next. */
  const { fake, scripts } = scriptedOpenAI();
  const app = appSuite("snapshot_revert", (dir) => projectAppEnv(dir, { PARLEY_SIGNUP: "invite", OPENAI_BASE_URL: `${fake.url}/v1` }));
  let ann: Browser;
  let bob: Browser;
  let projectId: string;
  let projectDir: string;

  beforeAll(async () => {
    projectDir = path.join(app.dir, "projects", "app");
    ({ ann, bob, projectId } = await annInvitesBob(app, "snapshots"));
  });

  const { call, ok: data } = memberCalls(() => app);

  /** A tool call reply (its arguments as JSON), then `tool_calls`. */
  const toolReply = (id: string, name: string, input: unknown, gate?: Promise<unknown>): FakeReply =>
    reply.stream([
      ...toolCallSteps({ id, name, pieces: [JSON.stringify(input)] }),
      ...(gate ? [{ kind: "gate", until: gate } satisfies StreamStep] : []),
      { kind: "finish", reason: "tool_calls" },
      { kind: "usage", usage: { prompt: 10, completion: 5 } },
    ]);

  async function session(who: Browser, title: string): Promise<string> {
    return (await data<Info>("session.create", { projectId, title }, who)).id;
  }

  /** Where a session's files are: its own workspace. */
  async function dirOf(sessionId: string): Promise<string> {
    return (await data<Info>("session.get", { sessionId }, ann)).directory;
  }

  async function prompt(who: Browser, sessionId: string, text: string): Promise<UserMessage> {
    return data<UserMessage>("session.prompt", { sessionId, parts: [{ type: "text", text }], model: MODEL }, who);
  }

  async function history(who: Browser, sessionId: string): Promise<WithParts[]> {
    return (await data<{ messages: WithParts[] }>("message.page", { sessionId, limit: 200 }, who)).messages;
  }

  const partsOf = <T extends Part["type"]>(messages: WithParts[], type: T): PartOf<T>[] =>
    messages.flatMap((m) => m.parts.filter((p): p is PartOf<T> => p.type === type));

  const idle = (sessionId: string) => settled(app.rt.services, sessionId, 30_000);

  async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`never happened: ${what}`);
  }

  it("N9: a folder replaced by a symlink does not break later snapshots, and the turns before it can be reverted (no 500)", async () => {
    const id = await session(ann, "N9");
    scripts.set("n9", [toolReply("c1", "write", { filePath: "dd/f.txt", content: "first\n" }), reply.text("written")]);
    await prompt(ann, id, "[n9] write dd/f.txt");
    await idle(id);
    const projectDir = await dirOf(id);
    expect(readFileSync(path.join(projectDir, "dd", "f.txt"), "utf8")).toBe("first\n");
    // A member's command replaces the folder with a link to another folder of the project.
    mkdirSync(path.join(projectDir, "n9-other"), { recursive: true });
    await fs.rm(path.join(projectDir, "dd"), { recursive: true });
    await fs.symlink("n9-other", path.join(projectDir, "dd"));
    scripts.set("n9", [toolReply("c2", "write", { filePath: "n9-second.txt", content: "second\n" }), reply.text("written")]);
    const second = await prompt(ann, id, "[n9] write n9-second.txt");
    await idle(id);
    const messages = await history(ann, id);
    const finish = partsOf(messages.filter((m) => m.info.id > second.id), "step-finish");
    expect(finish.some((p) => p.snapshot !== undefined)).toBe(true);
    expect(partsOf(messages.filter((m) => m.info.id > second.id), "patch").map((p) => p.files)).toEqual([["n9-second.txt"]]);
    // Reverting to before the first turn: 200, its file gone, the link left alone.
    const first = messages.find((m) => m.info.role === "user");
    const reverted = await call<Info>("session.revert", { sessionId: id, messageId: first?.info.id }, ann);
    expect(reverted.status).toBe(200);
    expect(existsSync(path.join(projectDir, "n9-second.txt"))).toBe(false);
    expect((await fs.lstat(path.join(projectDir, "dd"))).isSymbolicLink()).toBe(true);
    expect((await call<Info>("session.unrevert", { sessionId: id }, ann)).status).toBe(200);
    await fs.rm(path.join(projectDir, "dd"));
  });

  it("N4: reverting while another process keeps swapping a folder of the project for a link to an outside folder deletes nothing outside", async () => {
    const outside = path.join(app.dir, "outside");
    mkdirSync(outside, { recursive: true });
    const canaries = Array.from({ length: 10 }, (_, i) => `f${i}.txt`);
    for (const name of canaries) await fs.writeFile(path.join(outside, name), "canary\n");
    const id = await session(ann, "N4");
    const writes = canaries.map((name, i) => toolReply(`w${i}`, "write", { filePath: `work/${name}`, content: "made by the turn\n" }));
    scripts.set("n4", [...writes, reply.text("written")]);
    const user = await prompt(ann, id, "[n4] write the work files");
    await idle(id);
    const projectDir = await dirOf(id);
    expect(readdirSync(path.join(projectDir, "work")).sort()).toEqual([...canaries].sort());
    // Another process (as a bash command of another session would) swaps work/ for a link and back, without pause.
    const swapper = spawn(process.execPath, ["-e", SWAPPER, outside], { cwd: projectDir, stdio: "ignore" });
    const statuses: number[] = [];
    try {
      for (let round = 0; round < 15; round++) {
        statuses.push((await call<Info>("session.revert", { sessionId: id, messageId: user.id }, ann)).status);
        statuses.push((await call<Info>("session.unrevert", { sessionId: id }, ann)).status);
      }
    } finally {
      swapper.kill("SIGKILL");
      await new Promise((resolve) => swapper.once("exit", resolve));
    }
    expect(readdirSync(outside).sort()).toEqual([...canaries].sort());
    for (const name of canaries) expect(readFileSync(path.join(outside, name), "utf8")).toBe("canary\n");
    // Reverts went through (a round may fail on a path that changed under it, never by touching the outside).
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    if ((await fs.lstat(path.join(projectDir, "work")).catch(() => undefined /* no work/ */))?.isSymbolicLink()) await fs.rm(path.join(projectDir, "work"));
  });

  it("N7: another member's session writing hr/salaries.txt during a step is not in this session's patch, turn diff or summary, and reverting this session keeps it", async () => {
    const a = await session(ann, "N7 Ann");
    const b = await session(bob, "N7 Bob");
    // Ann's step is held at its end snapshot (after its write) until Bob's session has written.
    const { opened, release } = gate();
    const snapshots = app.rt.services.snapshots;
    const track = snapshots.track.bind(snapshots);
    let hold = true;
    const annDir = await dirOf(a);
    snapshots.track = async (project) => {
      if (hold && existsSync(path.join(annDir, "notes", "ann.txt"))) {
        hold = false;
        await opened;
      }
      return track(project);
    };
    let annTurn: UserMessage;
    try {
      scripts.set("n7a", [toolReply("a1", "write", { filePath: "notes/ann.txt", content: "ann\n" }), reply.text("done")]);
      scripts.set("n7b", [toolReply("b1", "write", { filePath: "hr/salaries.txt", content: "bob: 1\n" }), reply.text("done")]);
      annTurn = await prompt(ann, a, "[n7a] write notes/ann.txt");
      await until(() => !hold, "Ann's step reaching its end snapshot");
      await prompt(bob, b, "[n7b] write hr/salaries.txt");
      await idle(b);
      release();
      await idle(a);
    } finally {
      snapshots.track = track;
    }
    const patches = partsOf(await history(ann, a), "patch");
    expect(patches.map((p) => p.files)).toEqual([["notes/ann.txt"]]);
    const diff = await data<TurnDiff>("message.diff", { sessionId: a, messageId: annTurn.id }, ann);
    expect(diff.files.map((f) => f.file)).toEqual(["notes/ann.txt"]);
    expect(diff.text).not.toContain("salaries");
    const summary = await data<Info>("session.get", { sessionId: a }, ann);
    expect(summary.summary?.files).toBe(1);
    expect(summary.summary?.diffs?.map((d) => d.file) ?? []).not.toContain("hr/salaries.txt");
    expect((await call<Info>("session.revert", { sessionId: a, messageId: annTurn.id }, ann)).status).toBe(200);
    expect(existsSync(path.join(annDir, "notes", "ann.txt"))).toBe(false);
    expect(readFileSync(path.join(await dirOf(b), "hr", "salaries.txt"), "utf8")).toBe("bob: 1\n");
    // Neither ever saw the other's file (each works in its own tree).
    expect(existsSync(path.join(annDir, "hr", "salaries.txt"))).toBe(false);
    expect(existsSync(path.join(await dirOf(b), "notes", "ann.txt"))).toBe(false);
  });

  /** A session of Ann's titled `title` whose first turn (tagged `tag`) wrote `<tag>.txt`: its id and that turn's prompt. */
  async function wroteFile(title: string, tag: string) {
    const id = await session(ann, title);
    scripts.set(tag, [toolReply(tag, "write", { filePath: `${tag}.txt`, content: `${tag}\n` }), reply.text("written")]);
    const user = await prompt(ann, id, `[${tag}] write ${tag}.txt`);
    await idle(id);
    return { id, user };
  }

  it("D1: a prompt sent while a revert runs is refused before it is stored, never stored then hidden and deleted", async () => {
    const { id, user } = await wroteFile("D1", "d1");
    // The revert's restore is held until the test lets it go (as a large project would hold it).
    const restores = holdCalls(app.rt.services.snapshots, "restore");
    try {
      const reverting = call<Info>("session.revert", { sessionId: id, messageId: user.id }, ann);
      await until(() => restores.calls > 0, "the revert's restore");
      scripts.set("d1", [reply.text("answered after the revert")]);
      const meanwhile = await call<UserMessage>("session.prompt", { sessionId: id, parts: [{ type: "text", text: "[d1] sent during the revert" }], model: MODEL }, ann);
      restores.release();
      expect((await reverting).status).toBe(200);
      expect(meanwhile.status).toBe(409);
      expect(meanwhile.message).toMatch(/being reverted/);
    } finally {
      restores.restore();
    }
    await idle(id);
    const texts = (await app.rt.services.db.part.findMany({ where: { sessionId: id, type: "text" } })).map((p) => JSON.stringify(p.data));
    expect(texts.some((t) => t.includes("sent during the revert"))).toBe(false);
    // Sent again once the revert is done, it is answered.
    const again = await prompt(ann, id, "[d1] sent after the revert");
    await idle(id);
    const after = (await history(ann, id)).filter((m) => m.info.id > again.id);
    expect(partsOf(after, "text").map((p) => p.text)).toEqual(["answered after the revert"]);
  });

  it("D1: a prompt stored just as a revert began (its check came first) is kept and answered after the revert, which becomes final", async () => {
    const { id, user } = await wroteFile("D1 late", "late");
    const restores = holdCalls(app.rt.services.snapshots, "restore");
    const lock = app.rt.services.lock;
    const isRunning = lock.isRunning.bind(lock);
    // The prompt's check ran just before the revert took its lock: it saw no revert.
    lock.isRunning = async (key) => (key.startsWith("revert:") ? false : isRunning(key));
    let sent: UserMessage;
    try {
      const reverting = call<Info>("session.revert", { sessionId: id, messageId: user.id }, ann);
      await until(() => restores.calls > 0, "the revert's restore");
      scripts.set("late", [reply.text("answered after the revert")]);
      sent = await prompt(ann, id, "[late] sent as the revert began");
      restores.release();
      expect((await reverting).status).toBe(200);
    } finally {
      restores.restore();
      lock.isRunning = isRunning;
    }
    await idle(id);
    const messages = await history(ann, id);
    // The reverted turn is gone for good, its file too; the prompt is there, answered.
    expect(messages.map((m) => m.info.id)).not.toContain(user.id);
    expect(existsSync(path.join(await dirOf(id), "late.txt"))).toBe(false);
    expect((await data<Info>("session.get", { sessionId: id }, ann)).revert).toBeUndefined();
    expect(messages.find((m) => m.info.id === sent.id)?.info.role).toBe("user");
    expect(partsOf(messages.filter((m) => m.info.id > sent.id), "text").map((p) => p.text)).toEqual(["answered after the revert"]);
  });
  describe("issue 31: each session in its own workspace", () => {
    const totals = async () => (await data<{ totals?: { additions: number; deletions: number } }>("dashboard.list", { parentId: null, search: "W1" }, ann)).totals;

    it("W1: A writes team-shared.txt, B writes its own, A reverts: B's file is intact; each session's Lines and the dashboard totals count only its own edits", async () => {
      const a = await session(ann, "W1 Ann");
      const b = await session(bob, "W1 Bob");
      scripts.set("w1a", [toolReply("a1", "write", { filePath: "team-shared.txt", content: "from A\n" }), reply.text("done")]);
      const first = await prompt(ann, a, "[w1a] write team-shared.txt");
      await idle(a);
      scripts.set("w1b", [toolReply("b1", "write", { filePath: "team-shared.txt", content: "from B\n" }), reply.text("done")]);
      await prompt(bob, b, "[w1b] write team-shared.txt");
      await idle(b);
      const [annDir, bobDir] = [await dirOf(a), await dirOf(b)];
      expect(annDir).not.toBe(bobDir);
      expect(annDir).not.toBe(projectDir);
      expect(readFileSync(path.join(annDir, "team-shared.txt"), "utf8")).toBe("from A\n");
      expect(readFileSync(path.join(bobDir, "team-shared.txt"), "utf8")).toBe("from B\n");
      // The project's own folder is nobody's scratch space: neither write reached it.
      expect(existsSync(path.join(projectDir, "team-shared.txt"))).toBe(false);
      const lines = async (id: string) => (await data<Info>("session.get", { sessionId: id }, ann)).summary;
      expect(await lines(a)).toMatchObject({ additions: 1, deletions: 0, files: 1 });
      expect(await lines(b)).toMatchObject({ additions: 1, deletions: 0, files: 1 });
      expect(await totals()).toMatchObject({ additions: 2, deletions: 0 });
      expect((await call<Info>("session.revert", { sessionId: a, messageId: first.id }, ann)).status).toBe(200);
      expect(existsSync(path.join(annDir, "team-shared.txt"))).toBe(false);
      expect(readFileSync(path.join(bobDir, "team-shared.txt"), "utf8")).toBe("from B\n");
    });

    it("W1: a session that only reads shows no lines while another session edits a file", async () => {
      mkdirSync(path.join(projectDir, "src"), { recursive: true });
      const reader = await session(ann, "W1 reader");
      const editor = await session(bob, "W1 editor");
      scripts.set("w1r", [toolReply("r1", "read", { filePath: "README.md" }), reply.text("read")]);
      scripts.set("w1e", [toolReply("e1", "write", { filePath: "src/math.ts", content: "export const two = 2;\n" }), reply.text("written")]);
      await Promise.all([prompt(ann, reader, "[w1r] read the readme"), prompt(bob, editor, "[w1e] write src/math.ts")]);
      await Promise.all([idle(reader), idle(editor)]);
      const summary = (await data<Info>("session.get", { sessionId: reader }, ann)).summary;
      expect(summary?.additions ?? 0).toBe(0);
      expect(summary?.deletions ?? 0).toBe(0);
      expect((await data<Info>("session.get", { sessionId: editor }, ann)).summary).toMatchObject({ additions: 1, files: 1 });
    });

    it("W6: a session made before workspaces moves into a workspace of its own at its next prompt: its files come along, its earlier turn still reverts, and the project's folder is written no more", async () => {
      const { memberContext } = await import("../server/context");
      const Id = await import("../server/id");
      const { Session } = await import("../server/session");
      const ctx = await memberContext(ann.headers);
      const id = await session(ann, "W6 legacy");
      // As a session stored before workspaces: no workspace, the project's folder as its directory.
      const planned = (await app.rt.services.db.session.findUniqueOrThrow({ where: { id } })).workspaceId ?? "";
      await app.rt.services.db.session.update({ where: { id }, data: { workspaceId: null, directory: projectDir } });
      await app.rt.services.db.workspace.delete({ where: { id: planned } });
      // Its earlier turn wrote legacy.txt in the project's folder, snapshotted in the project's store.
      const scope = { id: projectId, directory: projectDir };
      const first = await app.rt.services.snapshots.track(scope);
      await fs.writeFile(path.join(projectDir, "legacy.txt"), "written before workspaces\n");
      const last = await app.rt.services.snapshots.track(scope);
      const user: UserMessage = { id: Id.ascending("message"), sessionId: id, role: "user", time: { created: Date.now() }, agent: "build", model: MODEL };
      await Session.updateMessage(ctx, user);
      const replyId = Id.ascending("message");
      await Session.updateMessage(ctx, { id: replyId, sessionId: id, role: "assistant", parentId: user.id, providerId: MODEL.providerId, modelId: MODEL.modelId, agent: "build", path: { cwd: projectDir, root: projectDir }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }, time: { created: Date.now(), completed: Date.now() } });
      const base = { sessionId: id, messageId: replyId };
      const tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
      await Session.updatePart(ctx, { ...base, id: Id.ascending("part"), type: "step-start", snapshot: first });
      await Session.updatePart(ctx, { ...base, id: Id.ascending("part"), type: "patch", hash: first, files: ["legacy.txt"] });
      await Session.updatePart(ctx, { ...base, id: Id.ascending("part"), type: "step-finish", reason: "stop", snapshot: last, cost: 0, tokens });

      scripts.set("w6", [toolReply("w", "write", { filePath: "w6.txt", content: "after workspaces\n" }), reply.text("written")]);
      await prompt(ann, id, "[w6] write w6.txt");
      await idle(id);
      const moved = await data<Info>("session.get", { sessionId: id }, ann);
      expect(moved.workspaceId).toMatch(/^wsp_/);
      expect(moved.directory).not.toBe(projectDir);
      expect(readFileSync(path.join(moved.directory, "legacy.txt"), "utf8")).toBe("written before workspaces\n");
      expect(readFileSync(path.join(moved.directory, "w6.txt"), "utf8")).toBe("after workspaces\n");
      expect(existsSync(path.join(projectDir, "w6.txt"))).toBe(false);
      // Reverting the turn from before workspaces puts the workspace back; the project's folder is left alone.
      expect((await call<Info>("session.revert", { sessionId: id, messageId: user.id }, ann)).status).toBe(200);
      expect(existsSync(path.join(moved.directory, "legacy.txt"))).toBe(false);
      expect(existsSync(path.join(moved.directory, "w6.txt"))).toBe(false);
      expect(readFileSync(path.join(projectDir, "legacy.txt"), "utf8")).toBe("written before workspaces\n");
    });

    it("W2: two sessions running at once: each patch and summary lists only its own files, and neither sees the other's", async () => {
      const a = await session(ann, "W2 Ann");
      const b = await session(bob, "W2 Bob");
      // Both steps are held open until both have written: the runners overlap for certain.
      const { opened: both, release } = gate();
      scripts.set("w2a", [toolReply("a1", "write", { filePath: "w2/ann.txt", content: "ann\n" }), toolReply("a2", "write", { filePath: "w2/ann-2.txt", content: "ann two\n" }, both), reply.text("done")]);
      scripts.set("w2b", [toolReply("b1", "write", { filePath: "w2/bob.txt", content: "bob\n" }), toolReply("b2", "write", { filePath: "w2/bob-2.txt", content: "bob two\n" }, both), reply.text("done")]);
      await Promise.all([prompt(ann, a, "[w2a] write ann's files"), prompt(bob, b, "[w2b] write bob's files")]);
      const [annDir, bobDir] = [await dirOf(a), await dirOf(b)];
      await until(() => existsSync(path.join(annDir, "w2", "ann.txt")) && existsSync(path.join(bobDir, "w2", "bob.txt")), "both first writes");
      expect(app.rt.services.runners.get(a)).toBeDefined();
      expect(app.rt.services.runners.get(b)).toBeDefined();
      release();
      await Promise.all([idle(a), idle(b)]);
      const filesOf = async (id: string) => partsOf(await history(ann, id), "patch").flatMap((p) => p.files).sort();
      expect(await filesOf(a)).toEqual(["w2/ann-2.txt", "w2/ann.txt"]);
      expect(await filesOf(b)).toEqual(["w2/bob-2.txt", "w2/bob.txt"]);
      const summaryFiles = async (id: string) => ((await data<Info>("session.get", { sessionId: id }, ann)).summary?.diffs ?? []).map((d) => d.file).sort();
      expect(await summaryFiles(a)).toEqual(["w2/ann-2.txt", "w2/ann.txt"]);
      expect(await summaryFiles(b)).toEqual(["w2/bob-2.txt", "w2/bob.txt"]);
      expect(readdirSync(path.join(annDir, "w2")).sort()).toEqual(["ann-2.txt", "ann.txt"]);
      expect(readdirSync(path.join(bobDir, "w2")).sort()).toEqual(["bob-2.txt", "bob.txt"]);
    });
  });
});
