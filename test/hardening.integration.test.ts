import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../server/cursor";
import * as Id from "../server/id";
import { Session, SessionEvent } from "../server/session";
import type { AssistantMessage, Part, UserMessage } from "../server/session/message";
import * as Store from "../server/session/store";
import { wire } from "../server/session/wire";
import { type TestApp, openApp, projectAppEnv, trpcAnswer, type ShareEvents, type Auth } from "./app";
import { type Browser, authCall, joinTeam, signUp } from "./auth";
import { offlineReply } from "./fixtures";
import { NO_TOKENS } from "./messages";
import { sseReader } from "./sse";

/**
 * The hardening issue's holes, through the real Route Handlers with real sign-in cookies:
 * what a share viewer gets (paths, internal errors, revoked links), and what a member may
 * do (names, team fields, cursors, project.root, hidden agents, other members' sessions).
 */

type MemberContext = Awaited<ReturnType<typeof import("../server/context")["memberContext"]>>;

const PRISMA_ERROR = "\nInvalid `prisma.part.create()` invocation in\n/srv/parley/server/session/store.ts:88:21\n\n→ 88 const row = await tx.part.create({";

describe("hardening (integration, through HTTP)", () => {
  let app: TestApp;
  let auth: Auth;
  let shareEvents: ShareEvents;
  let ann: Browser;
  let bob: Browser;
  let carol: Browser;
  let annCtx: MemberContext;
  let teamId: string;
  let projectId: string;
  let projectDir: string;
  let dataDir: string;
  const anonymous = new Headers();

  const call = <T>(procedure: string, input: unknown, who: Headers) => trpcAnswer<T>(app, procedure, input, who);
  const invite = (email: string, role: "member" | "admin", name?: string) => joinTeam(auth, ann, teamId, email, { role, ...(name ? { name } : {}) });

  beforeAll(async () => {
    app = await openApp("hardening", (dir) =>
      projectAppEnv(dir, {
        PARLEY_SIGNUP: "invite",
      }),
    );
    projectDir = path.join(app.dir, "projects", "app");
    dataDir = path.join(app.dir, "data");
    shareEvents = await import("../app/api/share/[shareId]/events/route");
    auth = await (await import("../server/auth/instance")).getAuth();
    const { memberContext } = await import("../server/context");
    ann = await signUp(auth, "ann@hardening.test", "Ann");
    annCtx = await memberContext(ann.headers);
    teamId = annCtx.actor.teamId;
    const project = await app.rt.services.db.project.findFirstOrThrow({ where: { teamId } });
    projectId = project.id;
    expect(project.directory).toBe(projectDir);
    bob = await invite("bob@hardening.test", "member");
    carol = await invite("carol@hardening.test", "admin");
  });

  afterAll(async () => {
    await app?.close();
  });

  /** A session of Ann's with a turn whose reply used list (absolute paths), was truncated, and a reply that failed inside the server. */
  async function sharedTurn(title: string) {
    const session = await Session.create(annCtx, { projectId, title });
    const user: UserMessage = { id: Id.ascending("message"), sessionId: session.id, role: "user", time: { created: Date.now() }, agent: "build", model: { providerId: "parley", modelId: "offline" } };
    await Session.updateMessage(annCtx, user);
    const reply = offlineReply(session.id, user.id, session.directory, { error: { name: "UnknownError", message: PRISMA_ERROR } });
    await Session.updateMessage(annCtx, reply);
    const saved = path.join(dataDir, "tool-output", teamId, session.id, "call_2.txt");
    const base = { sessionId: session.id, messageId: reply.id, type: "tool" as const };
    const time = { start: 1, end: 2 };
    const parts: Part[] = [
      { ...base, id: Id.ascending("part"), callId: "call_1", tool: "list", state: { status: "completed", input: { path: session.directory }, output: `${session.directory}/\n  src/\n    greet.ts`, title: session.directory, metadata: { path: "." }, time } },
      {
        ...base,
        id: Id.ascending("part"),
        callId: "call_2",
        tool: "bash",
        state: { status: "completed", input: { command: "npm test" }, output: `ok\n\nThe tool call succeeded but the output was truncated. Full output saved to: ${saved}\n`, title: "npm test", metadata: { outputPath: saved }, time },
      },
      { ...base, id: Id.ascending("part"), callId: "call_3", tool: "read", state: { status: "error", input: { filePath: `${session.directory}/src/greet.ts` }, error: `EACCES: permission denied, open '${session.directory}/src/greet.ts'`, time } },
    ];
    for (const part of parts) await Session.updatePart(annCtx, part);
    const shared = await call<{ share: { id: string } }>("session.share", { sessionId: session.id }, ann.headers);
    expect(shared.status).toBe(200);
    return { session, reply, shareId: shared.data.share.id };
  }

  const leaks = (text: string) => [projectDir, dataDir, "prisma.part.create", "store.ts:88"].filter((secret) => text.includes(secret));

  describe("share links", () => {
    it("share.page shows project-relative paths, saved outputs by name and a generic message for an unexpected error", async () => {
      const { shareId } = await sharedTurn("Paths");
      const page = await call<{ messages: { messages: { info: AssistantMessage | UserMessage }[] } }>("share.page", { shareId }, anonymous);
      expect(page.status).toBe(200);
      expect(leaks(page.text)).toEqual([]);
      const reply = page.data.messages.messages.map((m) => m.info).find((info): info is AssistantMessage => info.role === "assistant");
      expect(reply?.path).toEqual({ cwd: ".", root: "." });
      expect(reply?.error).toEqual({ name: "UnknownError", message: "The server ran into an unexpected error." });
      expect(page.text).toContain("./\\n  src/\\n    greet.ts");
      expect(page.text).toContain("Full output saved to: tool-output/call_2.txt");
      expect(page.text).toContain("open 'src/greet.ts'");
      // Members still see it all.
      const own = await call("message.page", { sessionId: reply?.sessionId }, ann.headers);
      expect(own.text).toContain(dataDir);
    });

    it("the share's live events carry no server path or internal error", async () => {
      const { session, reply, shareId } = await sharedTurn("Live paths");
      const abort = new AbortController();
      const res = await shareEvents.GET(new Request(`http://parley.test/api/share/${shareId}/events`, { signal: abort.signal }), { params: Promise.resolve({ shareId }) });
      expect(res.status).toBe(200);
      const stream = sseReader(res);
      await stream.until(() => stream.events.some((e) => e.name === "stream.ready"), "the opening");
      await Session.updateMessage(annCtx, { ...reply, time: { created: reply.time.created, completed: Date.now() + 1 } });
      await Session.updatePart(annCtx, {
        id: Id.ascending("part"),
        sessionId: session.id,
        messageId: reply.id,
        type: "tool",
        callId: "call_9",
        tool: "bash",
        state: { status: "completed", input: { command: "pwd", workdir: session.directory }, output: `${session.directory}/src`, title: "pwd", metadata: {}, time: { start: 1, end: 2 } },
      });
      await stream.until(() => stream.events.some((e) => e.name === "message.part.updated"), "the live part");
      await stream.until(() => stream.events.some((e) => e.name === "message.updated"), "the live message");
      abort.abort();
      await stream.pump;
      const seen = JSON.stringify(stream.events);
      expect(leaks(seen)).toEqual([]);
      expect(seen).toContain('"output":"src"');
      expect(seen).toContain("The server ran into an unexpected error.");
    });

    it("a revoked link stays dead: sharing again after a revoke makes a new link, sharing while shared keeps it", async () => {
      const { session, shareId } = await sharedTurn("Revoked for good");
      const again = await call<{ share: { id: string } }>("session.share", { sessionId: session.id }, ann.headers);
      expect(again.data.share.id).toBe(shareId);
      expect((await call("session.unshare", { sessionId: session.id }, ann.headers)).status).toBe(200);
      expect((await call("share.page", { shareId }, anonymous)).status).toBe(404);
      const renewed = await call<{ share: { id: string } }>("session.share", { sessionId: session.id }, ann.headers);
      expect(renewed.status).toBe(200);
      expect(renewed.data.share.id).not.toBe(shareId);
      expect((await call("share.page", { shareId }, anonymous)).status).toBe(404);
      const old = await shareEvents.GET(new Request(`http://parley.test/api/share/${shareId}/events`), { params: Promise.resolve({ shareId }) });
      expect(old.status).toBe(404);
      expect((await call("share.page", { shareId: renewed.data.share.id }, anonymous)).status).toBe(200);
    });
  });

  describe("issue 30: what a share viewer sees", () => {
    /** Everything a viewer must never read: the server's folders and the team's internal ids. */
    const internals = (text: string) => [projectDir, dataDir, app.dir, teamId, projectId, ann.userId].filter((secret) => text.includes(secret));

    function openShareEvents(shareId: string) {
      const abort = new AbortController();
      const res = shareEvents.GET(new Request(`http://parley.test/api/share/${shareId}/events`, { signal: abort.signal }), { params: Promise.resolve({ shareId }) });
      return { abort, res };
    }

    /** The text a browser rebuilds from a part's events: a delta is placed at its offset, a full part replaces it. */
    function rebuilt(frames: { name: string; payload: unknown }[], partId: string): string {
      let text = "";
      for (const frame of frames) {
        if (frame.name !== "message.part.updated") continue;
        const { part, delta, offset } = frame.payload as { part: { id: string; text?: string }; delta?: string; offset?: number };
        if (part.id !== partId) continue;
        text = delta !== undefined && offset !== undefined ? text.slice(0, offset) + delta : (part.text ?? "");
      }
      return text;
    }

    it("N12: share.page, share.diff and the share's live events carry no server path and no team, project or author id", async () => {
      const saved = path.join(dataDir, "tool-output", teamId, Id.ascending("session"), "call_1.txt");
      const session = await Session.create(annCtx, { projectId, title: `Fix ${projectDir}/src/a.ts` });
      const user: UserMessage = { id: Id.ascending("message"), sessionId: session.id, role: "user", time: { created: Date.now() }, agent: "build", model: { providerId: "parley", modelId: "offline" } };
      await Session.updateMessage(annCtx, user);
      await Session.updatePart(annCtx, { id: Id.ascending("part"), sessionId: session.id, messageId: user.id, type: "text", text: `Look at ${projectDir}/src/a.ts` });
      const reply = offlineReply(session.id, user.id, projectDir, { error: { name: "APIError", message: `the provider could not read ${projectDir}/src/a.ts`, isRetryable: false } });
      await Session.updateMessage(annCtx, reply);
      const base = { sessionId: session.id, messageId: reply.id };
      await Session.updatePart(annCtx, { ...base, id: Id.ascending("part"), type: "reasoning", text: `The project lives in ${projectDir}, the data in ${dataDir}.`, time: { start: 1, end: 2 } });
      await Session.updatePart(annCtx, { ...base, id: Id.ascending("part"), type: "text", text: `I edited ${projectDir}/src/a.ts (see ${saved}).`, time: { start: 1, end: 2 } });
      const shareId = (await call<{ share: { id: string } }>("session.share", { sessionId: session.id }, ann.headers)).data.share.id;

      const page = await call("share.page", { shareId }, anonymous);
      expect(page.status).toBe(200);
      expect(internals(page.text)).toEqual([]);
      expect(page.text).toContain("Fix src/a.ts");
      expect(page.text).toContain("Look at src/a.ts");
      expect(page.text).toContain("The project lives in ., the data in <data directory>.");
      expect(page.text).toContain("could not read src/a.ts");
      const diff = await call("share.diff", { shareId, messageId: user.id }, anonymous);
      expect(diff.status).toBe(200);
      expect(internals(diff.text)).toEqual([]);

      const { bus } = app.rt.services;
      const { abort, res } = openShareEvents(shareId);
      const stream = sseReader(await res);
      await stream.until(() => stream.events.some((e) => e.name === "stream.ready"), "the opening");
      // A reply streamed in pieces that cut the folders' names apart.
      const streamed = { ...base, id: Id.ascending("part"), type: "text" as const, text: "", time: { start: Date.now() } };
      const pieces = ["Now in ", projectDir.slice(0, 9), `${projectDir.slice(9)}/s`, "rc/b.ts and ", dataDir.slice(0, -2), `${dataDir.slice(-2)}/x`, " done"];
      for (const piece of pieces) {
        streamed.text += piece;
        Store.publishPart(app.rt.services, teamId, { ...streamed }, piece);
      }
      await Session.updatePart(annCtx, { ...streamed, time: { start: streamed.time.start, end: Date.now() } });
      // The same from a runner on another instance: its deltas arrive with their offset only (wire.ts).
      const remote = { ...base, id: Id.ascending("part"), type: "reasoning" as const, text: "", time: { start: Date.now() } };
      const fromElsewhere = (delta?: string) => {
        const payload = delta === undefined ? { part: { ...remote } } : { part: { ...remote }, delta };
        const event = { id: randomUUID(), name: SessionEvent.PartUpdated.name, payload, scope: { teamId, sessionId: session.id }, time: Date.now() };
        bus.deliver(wire(event));
      };
      remote.text = `Checking ${projectDir.slice(0, 12)}`;
      // A delta before this stream knows the part: nothing to add it to, left out.
      fromElsewhere(remote.text);
      remote.text += `${projectDir.slice(12)}/lib`;
      // The full part (as a runner sends for a sync request), then deltas on top of it.
      fromElsewhere();
      for (const piece of ["/c.ts in ", dataDir.slice(0, 5), dataDir.slice(5), "."]) {
        remote.text += piece;
        fromElsewhere(piece);
      }
      await stream.until(() => rebuilt(stream.events, remote.id) === "Checking lib/c.ts in ", "the remote deltas (a full stop after a folder waits for what follows)");
      remote.text += " Done";
      fromElsewhere(" Done");
      await stream.until(() => rebuilt(stream.events, remote.id) === "Checking lib/c.ts in <data directory>. Done", "the delta after the full stop");
      const ended = { ...remote, time: { start: remote.time.start, end: Date.now() } };
      bus.deliver({ id: randomUUID(), name: SessionEvent.PartUpdated.name, payload: { part: ended }, scope: { teamId, sessionId: session.id }, time: Date.now() });
      bus.publish(SessionEvent.TodoUpdated, { sessionId: session.id, todos: [{ id: "t1", content: `check ${projectDir}/src`, status: "pending", priority: "low" }] }, { teamId, sessionId: session.id });
      bus.publish(SessionEvent.StatusChanged, { sessionId: session.id, status: { type: "retry", attempt: 1, message: `no access to ${dataDir}`, next: Date.now() } }, { teamId, sessionId: session.id });
      bus.publish(SessionEvent.Error, { sessionId: session.id, error: { name: "AuthError", providerId: "parley", message: `key file ${dataDir}/key missing` } }, { teamId, sessionId: session.id });
      await Session.update(annCtx, session.id, { title: `Done with ${projectDir}` });
      await stream.until(() => stream.events.some((e) => e.name === "session.updated" && JSON.stringify(e).includes("Done with")), "the rename");
      abort.abort();
      await stream.pump;
      const seen = JSON.stringify(stream.events);
      expect(internals(seen)).toEqual([]);
      expect(rebuilt(stream.events, streamed.id)).toBe("Now in src/b.ts and <data directory>/x done");
      expect(rebuilt(stream.events, remote.id)).toBe("Checking lib/c.ts in <data directory>. Done");
      // While it streamed, no piece of a folder's name reached the viewer either.
      for (const frame of stream.events) expect(JSON.stringify(frame)).not.toContain(projectDir.slice(0, 9));
      expect(seen).toContain("Done with .");
      expect(seen).toContain("check src");
      expect(seen).toContain("no access to <data directory>");
    });

    it("N7: a shared turn's diff and patch show viewers only the files the team's and project's read rules let them read", async () => {
      expect((await call("permission.setPolicy", { rules: [{ permission: "read", pattern: "hr/*", action: "deny" }] }, ann.headers)).status).toBe(200);
      try {
        const session = await Session.create(annCtx, { projectId, title: "Turn diff" });
        if (!session.workspaceId) throw new Error("a new session has a workspace");
        // The session's own files, as its tools would have changed them.
        const project = { id: session.workspaceId, directory: (await app.rt.services.workspaces.ready(session.workspaceId)).directory };
        const { snapshots } = app.rt.services;
        const first = await snapshots.track(project);
        mkdirSync(path.join(project.directory, "hr"), { recursive: true });
        mkdirSync(path.join(project.directory, "src"), { recursive: true });
        writeFileSync(path.join(project.directory, "hr", "salaries.txt"), "ann 250000\n");
        writeFileSync(path.join(project.directory, "src", "a.ts"), "export const a = 1;\n");
        const last = await snapshots.track(project);
        const diffs = [
          { file: "hr/salaries.txt", additions: 1, deletions: 0 },
          { file: "src/a.ts", additions: 1, deletions: 0 },
        ];
        const user: UserMessage = { id: Id.ascending("message"), sessionId: session.id, role: "user", time: { created: Date.now() }, agent: "build", model: { providerId: "parley", modelId: "offline" }, summary: { diffs } };
        await Session.updateMessage(annCtx, user);
        const reply = offlineReply(session.id, user.id, project.directory);
        await Session.updateMessage(annCtx, reply);
        const base = { sessionId: session.id, messageId: reply.id };
        await Session.updatePart(annCtx, { ...base, id: Id.ascending("part"), type: "step-start", snapshot: first });
        const patch: Part = { ...base, id: Id.ascending("part"), type: "patch", hash: first, files: ["hr/salaries.txt", "src/a.ts"] };
        await Session.updatePart(annCtx, patch);
        await Session.updatePart(annCtx, { ...base, id: Id.ascending("part"), type: "step-finish", reason: "stop", snapshot: last, cost: 0, tokens: NO_TOKENS });
        await Store.setSummary(app.rt.services, session.id, diffs);
        const shareId = (await call<{ share: { id: string } }>("session.share", { sessionId: session.id }, ann.headers)).data.share.id;

        // The member sees both files.
        const own = await call<{ files: { file: string }[] }>("message.diff", { sessionId: session.id, messageId: user.id }, ann.headers);
        expect(own.data.files.map((f) => f.file)).toEqual(["hr/salaries.txt", "src/a.ts"]);

        const diff = await call<{ files: { file: string }[]; text: string }>("share.diff", { shareId, messageId: user.id }, anonymous);
        expect(diff.status).toBe(200);
        expect(diff.data.files.map((f) => f.file)).toEqual(["src/a.ts"]);
        expect(diff.data.text).toContain("export const a = 1;");
        const page = await call<{ messages: { messages: { parts: Part[] }[] } }>("share.page", { shareId }, anonymous);
        expect(page.status).toBe(200);
        const shownPatch = page.data.messages.messages.flatMap((m) => m.parts).find((p) => p.type === "patch");
        expect(shownPatch).toMatchObject({ type: "patch", files: ["src/a.ts"] });
        expect(page.text).not.toContain("salaries");
        expect(page.text).not.toContain("250000");

        // Live: the patch and the session's summary as they are published.
        const { abort, res } = openShareEvents(shareId);
        const stream = sseReader(await res);
        await stream.until(() => stream.events.some((e) => e.name === "stream.ready"), "the opening");
        await Session.updatePart(annCtx, { ...patch, id: Id.ascending("part") });
        await Store.setSummary(app.rt.services, session.id, diffs);
        app.rt.services.bus.publish(SessionEvent.Diff, { sessionId: session.id, diff: diffs }, { teamId, sessionId: session.id });
        await Session.updateMessage(annCtx, { ...user, summary: { diffs } });
        await stream.until(() => stream.events.some((e) => e.name === "message.updated"), "the user message");
        abort.abort();
        await stream.pump;
        const seen = JSON.stringify(stream.events);
        expect(seen).toContain("src/a.ts");
        expect(seen).not.toContain("salaries");
      } finally {
        expect((await call("permission.setPolicy", { rules: [] }, ann.headers)).status).toBe(200);
      }
    });
  });

  describe("issue 30: team wording and fields", () => {
    it("N16: a folder overlapping another team's project is refused without naming another team; the team's own gets a helpful message", async () => {
      const erin = await invite("erin@hardening.test", "member");
      const created = await authCall(auth, "/organization/create", { name: "Erin's team", slug: "erin" }, erin.headers);
      expect(created.status).toBe(200);
      mkdirSync(path.join(projectDir, "inner"), { recursive: true });
      for (const directory of ["app", "app/inner"]) {
        const refused = await call("project.create", { directory }, erin.headers);
        expect(refused.status, directory).toBe(409);
        expect(refused.message).toBe(`This folder cannot be used: it is inside, around or equal to a folder already registered (${directory}).`);
        expect(refused.message).not.toMatch(/team/);
      }
      const own = await call("project.create", { directory: "app" }, ann.headers);
      expect(own.status).toBe(409);
      expect(own.message).toBe("app is already a project of this team");
    });

    it("N16: a team's slug is the server's: a client's is ignored at creation, refused on update, and cannot be looked up", async () => {
      const fay = await invite("fay@hardening.test", "member");
      const created = await authCall(auth, "/organization/create", { name: "Fay's team", slug: "fays-team" }, fay.headers);
      expect(created.status).toBe(200);
      const fayTeam = (created.body as { id: string }).id;
      const stored = await app.rt.services.db.team.findUniqueOrThrow({ where: { id: fayTeam } });
      expect(stored.slug).not.toBe("fays-team");
      // Another team's slug (the first team's is its id) is not a way to learn it exists.
      const taken = await authCall(auth, "/organization/update", { organizationId: fayTeam, data: { slug: teamId } }, fay.headers);
      const free = await authCall(auth, "/organization/update", { organizationId: fayTeam, data: { slug: "nobody-has-this" } }, fay.headers);
      for (const res of [taken, free]) {
        expect(res.status).toBe(400);
        expect(JSON.stringify(res.body)).toContain("A team's slug is set by the server and cannot be changed.");
      }
      expect((await app.rt.services.db.team.findUniqueOrThrow({ where: { id: fayTeam } })).slug).toBe(stored.slug);
      expect((await authCall(auth, "/organization/check-slug", { slug: teamId }, fay.headers)).status).toBe(404);
      expect((await authCall(auth, "/organization/update", { organizationId: fayTeam, data: { name: "Fay's renamed team" } }, fay.headers)).status).toBe(200);
    });

    it("N16: removing an owner, or the only owner leaving or stepping down, gets a clear message", async () => {
      const gil = await invite("gil@hardening.test", "admin");
      const ownerMembership = await app.rt.services.db.membership.findFirstOrThrow({ where: { teamId, userId: ann.userId } });
      const byAdmin = await authCall(auth, "/organization/remove-member", { memberIdOrEmail: ownerMembership.id, organizationId: teamId }, gil.headers);
      expect(byAdmin.status).toBe(400);
      expect(JSON.stringify(byAdmin.body)).toContain("The team's only owner cannot be removed: make another member owner first.");
      const byEmail = await authCall(auth, "/organization/remove-member", { memberIdOrEmail: ann.email, organizationId: teamId }, ann.headers);
      expect(JSON.stringify(byEmail.body)).toContain("The team's only owner cannot be removed");
      const leaving = await authCall(auth, "/organization/leave", { organizationId: teamId }, ann.headers);
      expect(leaving.status).toBe(400);
      expect(JSON.stringify(leaving.body)).toContain("The team's only owner cannot leave: make another member owner first.");
      const stepping = await authCall(auth, "/organization/update-member-role", { memberId: ownerMembership.id, role: "admin", organizationId: teamId }, ann.headers);
      expect(stepping.status).toBe(400);
      expect(JSON.stringify(stepping.body)).toContain("The team's only owner cannot give up the role: make another member owner first.");
      for (const res of [byAdmin, byEmail, leaving, stepping]) expect(JSON.stringify(res.body)).not.toMatch(/organization/i);
      // With a second owner, an admin still cannot remove one.
      const gilMembership = await app.rt.services.db.membership.findFirstOrThrow({ where: { teamId, userId: gil.userId } });
      expect((await authCall(auth, "/organization/update-member-role", { memberId: gilMembership.id, role: "owner", organizationId: teamId }, ann.headers)).status).toBe(200);
      const hal = await invite("hal@hardening.test", "admin");
      const byOtherAdmin = await authCall(auth, "/organization/remove-member", { memberIdOrEmail: gilMembership.id, organizationId: teamId }, hal.headers);
      expect(byOtherAdmin.status).toBe(400);
      expect(JSON.stringify(byOtherAdmin.body)).toContain("An owner can be removed only by another owner.");
      expect((await authCall(auth, "/organization/update-member-role", { memberId: gilMembership.id, role: "admin", organizationId: teamId }, ann.headers)).status).toBe(200);
      // Another team's member is not found, owner or not.
      const fay = await app.rt.services.db.user.findFirstOrThrow({ where: { email: "fay@hardening.test" } });
      const foreign = await app.rt.services.db.membership.findFirstOrThrow({ where: { userId: fay.id, role: "owner" } });
      const probe = await authCall(auth, "/organization/remove-member", { memberIdOrEmail: foreign.id, organizationId: teamId }, ann.headers);
      expect(probe.status).toBe(400);
      expect(JSON.stringify(probe.body)).toContain("Member not found");
    });
  });

  describe("members", () => {
    it("a user name is at most 100 characters, at sign-up and later", async () => {
      const long = "N".repeat(101);
      const update = await authCall(auth, "/update-user", { name: long }, bob.headers);
      expect(update.status).toBe(400);
      expect(JSON.stringify(update.body)).toContain("100 characters");
      expect((await app.rt.services.db.user.findUniqueOrThrow({ where: { id: bob.userId } })).name).not.toBe(long);
      expect((await authCall(auth, "/update-user", { name: "B".repeat(100) }, bob.headers)).status).toBe(200);

      const invited = await authCall(auth, "/organization/invite-member", { email: "dan@hardening.test", role: "member", organizationId: teamId }, ann.headers);
      expect(invited.status).toBe(200);
      const asInvited = new Headers({ "x-parley-invitation": (invited.body as { id: string }).id });
      const signUpLong = await authCall(auth, "/sign-up/email", { email: "dan@hardening.test", name: long, password: "correct horse battery" }, asInvited);
      expect(signUpLong.status).toBe(400);
      expect(await app.rt.services.db.user.count({ where: { email: "dan@hardening.test" } })).toBe(0);
    });

    it("a team's logo, slug and metadata are allow-listed", async () => {
      const update = (data: Record<string, unknown>) => authCall(auth, "/organization/update", { organizationId: teamId, data }, ann.headers);
      for (const data of [{ logo: "javascript:alert(document.cookie)" }, { logo: "data:text/html,<script>alert(1)</script>" }, { slug: "javascript:alert(1)" }, { metadata: { href: "javascript:alert(1)" } }, { name: "T".repeat(101) }]) {
        const res = await update(data);
        expect(res.status, JSON.stringify(data)).toBe(400);
      }
      const team = await app.rt.services.db.team.findUniqueOrThrow({ where: { id: teamId } });
      expect(team.logo ?? "").not.toContain("javascript:");
      expect(team.slug).not.toContain("javascript:");
      expect(team.metadata ?? "").not.toContain("javascript:");
      expect((await update({ logo: "https://example.test/logo.png", name: "Ann's team" })).status).toBe(200);
    });

    it("a crafted list cursor is a 400, never a 500", async () => {
      const some = await Session.create(annCtx, { projectId, title: "Cursor target" });
      const cursors: [string, Record<string, unknown>][] = [
        ["session.list", { cursor: encodeCursor([1e300, some.id]) }],
        ["session.list", { cursor: encodeCursor([-1e17, some.id]) }],
        ["dashboard.list", { cursor: encodeCursor(["updated", "99999999999999999999", some.id]) }],
        ["dashboard.list", { sort: "tokens", cursor: encodeCursor(["tokens", "99999999999999999999999", some.id]) }],
        ["share.listShares", { cursor: encodeCursor([1e300, "x"]) }],
        ["share.listShares", { cursor: encodeCursor([0, "a\u0000b"]) }],
      ];
      for (const [procedure, input] of cursors) {
        const res = await call(procedure, input, bob.headers);
        expect(res.status, `${procedure} ${JSON.stringify(input)}: ${res.text.slice(0, 200)}`).toBe(400);
        expect(res.message).toContain("cursor");
      }
      // A real cursor still pages.
      const first = await call<{ nextCursor?: string }>("session.list", { limit: 1, archived: "all" }, bob.headers);
      expect((await call("session.list", { limit: 1, archived: "all", cursor: first.data.nextCursor }, bob.headers)).status).toBe(200);
    });

    it("project.root is for owners and admins only", async () => {
      const asMember = await call("project.root", undefined, bob.headers);
      expect(asMember.status).toBe(403);
      expect(asMember.text).not.toContain(path.join(app.dir, "projects"));
      expect((await call<{ root: string }>("project.root", undefined, carol.headers)).data.root).toBe(path.join(app.dir, "projects"));
      expect((await call<{ root: string }>("project.root", undefined, ann.headers)).status).toBe(200);
    });

    it("a hidden agent (compaction) cannot be chosen for a session or a prompt", async () => {
      const created = await call("session.create", { projectId, agent: "compaction" }, bob.headers);
      expect(created.status).toBe(400);
      expect(created.message).toContain("compaction");
      const session = await call<{ id: string }>("session.create", { projectId, title: "Agents" }, bob.headers);
      expect(session.status).toBe(200);
      const prompted = await call("session.prompt", { sessionId: session.data.id, parts: [{ type: "text", text: "hi" }], agent: "compaction", noReply: true }, bob.headers);
      expect(prompted.status).toBe(400);
      expect((await Session.messages(annCtx, session.data.id)).messages).toHaveLength(0);
      expect((await call("session.prompt", { sessionId: session.data.id, parts: [{ type: "text", text: "hi" }], agent: "build", noReply: true }, bob.headers)).status).toBe(200);
    });

    it("only the author or an owner/admin deletes, archives or unshares a session", async () => {
      const annSession = await call<{ id: string }>("session.create", { projectId, title: "Ann's own" }, ann.headers);
      const sessionId = annSession.data.id;
      expect((await call("session.share", { sessionId }, ann.headers)).status).toBe(200);
      // Bob, a member, cannot end Ann's session or its link (he can still work in it).
      expect((await call("session.unshare", { sessionId }, bob.headers)).status).toBe(403);
      expect((await call("session.remove", { sessionId }, bob.headers)).status).toBe(403);
      expect((await call("session.update", { sessionId, patch: { archived: true } }, bob.headers)).status).toBe(403);
      expect((await call("session.update", { sessionId, patch: { title: "Renamed by Bob" } }, bob.headers)).status).toBe(200);
      const still = await call<{ share?: unknown; time: { archived?: number } }>("session.get", { sessionId }, ann.headers);
      expect(still.data.share).toBeDefined();
      // His own session: yes.
      const bobs = await call<{ id: string }>("session.create", { projectId, title: "Bob's own" }, bob.headers);
      expect((await call("session.share", { sessionId: bobs.data.id }, bob.headers)).status).toBe(200);
      expect((await call("session.unshare", { sessionId: bobs.data.id }, bob.headers)).status).toBe(200);
      expect((await call("session.update", { sessionId: bobs.data.id, patch: { archived: true } }, bob.headers)).status).toBe(200);
      expect((await call("session.remove", { sessionId: bobs.data.id }, bob.headers)).status).toBe(200);
      // Carol, an admin: anyone's.
      expect((await call("session.unshare", { sessionId }, carol.headers)).status).toBe(200);
      expect((await call("session.update", { sessionId, patch: { archived: true } }, carol.headers)).status).toBe(200);
      expect((await call("session.remove", { sessionId }, carol.headers)).status).toBe(200);
      expect((await call("session.get", { sessionId }, ann.headers)).status).toBe(404);
    });
  });
});
