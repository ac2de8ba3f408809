import { beforeAll, describe, expect, it } from "vitest";
import { makeTeam, type TeamFixture } from "../../test/db";
import { is } from "../bus/bus";
import { parleyError, userMessage } from "../../test/fixtures";
import { type Frame, sseReader } from "../../test/sse";
import * as Id from "../id";
import * as PermissionEvent from "../permission/events";
import { Session, SessionEvent } from "../session";
import { SyncRequested } from "../session/runner";
import { liveStream } from "./stream";

/**
 * The three live streams through the one function, against a real database: which
 * events each audience gets is what the events declare, the opening is named, and the
 * runners are asked to resend what is streaming.
 */

/** A request for a stream, from a client without an address of its own (no cap on addresses applies). */
const request = (signal: AbortSignal) => new Request("http://parley.test/events", { signal });

/** The session an event is about, as its scope says. */
const sessionOf = (frame: Frame): string | undefined => (frame as Frame & { scope: { sessionId?: string } }).scope.sessionId;

describe("live streams (integration)", () => {
  let team: TeamFixture;
  beforeAll(async () => {
    team = await makeTeam();
  });

  /** One event of every kind about `sessionId`, then a rename to `last` that ends the batch. */
  async function publishEveryKind(sessionId: string, last: string) {
    const { bus } = team.ctx;
    const scope = { teamId: team.teamId, sessionId };
    const request = { id: Id.ascending("permission"), sessionId, permission: "bash", patterns: ["ls"], always: [], metadata: {}, time: { created: 1 } };
    bus.publish(PermissionEvent.Asked, { request }, scope);
    bus.publish(SessionEvent.TodoUpdated, { sessionId, todos: [] }, scope);
    bus.publish(SyncRequested, { sessionIds: [sessionId], connection: "elsewhere", instance: bus.instanceId }, scope);
    await Session.updateMessage(team.ctx, userMessage(sessionId));
    await Session.update(team.ctx, sessionId, { title: last });
  }
  const titled = (last: string) => (frame: Frame) => frame.name === "session.updated" && (frame.payload as { info: { title: string } }).info.title === last;

  /** The sessions the runners were asked to resync while `work` ran. */
  async function syncsDuring(work: () => Promise<void>): Promise<string[]> {
    const asked: string[] = [];
    const stop = team.ctx.bus.subscribeAll((e) => (is(e, SyncRequested) ? asked.push(...e.payload.sessionIds) : undefined));
    try {
      await work();
    } finally {
      stop();
    }
    return asked;
  }

  it("member: the session as it is now, stream.ready with its status, then every client event of that session only", async () => {
    const info = await Session.create(team.ctx, { projectId: team.projectId, title: "Member view" });
    const other = await Session.create(team.ctx, { projectId: team.projectId, title: "Elsewhere" });
    const abort = new AbortController();
    let stream: ReturnType<typeof sseReader> | undefined;
    const synced = await syncsDuring(async () => {
      stream = sseReader(await liveStream(request(abort.signal), { audience: "member", ctx: team.ctx, sessionId: info.id }));
      await stream.until(() => stream!.events.length >= 2, "the opening");
    });
    const events = stream!.events;
    expect(events.slice(0, 2)).toMatchObject([
      { name: "session.updated", payload: { info: { id: info.id, title: "Member view" } } },
      { name: "stream.ready", payload: { sessionId: info.id, status: { type: "idle" } } },
    ]);
    expect(synced).toEqual([info.id]);

    await publishEveryKind(other.id, "Elsewhere, renamed");
    await publishEveryKind(info.id, "Member last");
    await stream!.until(() => events.some(titled("Member last")), "the last rename");
    const names = events.slice(2).map((e) => e.name);
    expect(names).toEqual(["permission.asked", "todo.updated", "message.updated", "session.updated"]);
    expect(events.map(sessionOf).every((id) => id === info.id)).toBe(true);
    abort.abort();
    await stream!.pump;
  });

  it("team: session and permission events of every session of the team, live only; another team is unknown", async () => {
    const info = await Session.create(team.ctx, { projectId: team.projectId, title: "Team view" });
    const abort = new AbortController();
    const stream = sseReader(await liveStream(request(abort.signal), { audience: "team", ctx: team.ctx, teamId: team.teamId }));
    await publishEveryKind(info.id, "Team last");
    await stream.until(() => stream.events.some(titled("Team last")), "the last rename");
    expect(stream.events.map((e) => e.name)).toEqual(["permission.asked", "session.updated"]);
    abort.abort();
    await stream.pump;

    const other = await makeTeam({ services: team.ctx });
    await parleyError(liveStream(request(new AbortController().signal), { audience: "team", ctx: team.ctx, teamId: other.teamId }), "NOT_FOUND");
  });

  it("viewer: the shared session as a viewer sees it, stream.ready, then session, message and todo events, never a permission", async () => {
    const info = await Session.create(team.ctx, { projectId: team.projectId, title: "Viewer view" });
    const child = await Session.create(team.ctx, { projectId: team.projectId, parentId: info.id, title: "Viewer child" });
    const shareId = (await Session.share(team.ctx, info.id)).share!.id;
    const abort = new AbortController();
    let stream: ReturnType<typeof sseReader> | undefined;
    const synced = await syncsDuring(async () => {
      stream = sseReader(await liveStream(request(abort.signal), { audience: "viewer", services: team.ctx, shareId }));
      await stream.until(() => stream!.events.length >= 2, "the opening");
    });
    const events = stream!.events;
    expect(events.slice(0, 2)).toMatchObject([
      { name: "session.updated", payload: { info: { id: info.id, directory: "", share: { id: shareId } } } },
      { name: "stream.ready", payload: { sessionId: info.id, status: { type: "idle" } } },
    ]);
    expect((events[0]!.payload as { info: object }).info).not.toHaveProperty("permission");
    expect(new Set(synced)).toEqual(new Set([info.id, child.id]));

    await publishEveryKind(child.id, "Viewer child, renamed");
    await publishEveryKind(info.id, "Viewer last");
    await stream!.until(() => events.some(titled("Viewer last")), "the last rename");
    const names = events.slice(2).map((e) => `${e.name}:${sessionOf(e) === child.id ? "child" : "root"}`);
    expect(names).toEqual([
      "todo.updated:child",
      "message.updated:child",
      "session.updated:child",
      "todo.updated:root",
      "message.updated:root",
      "session.updated:root",
    ]);
    abort.abort();
    await stream!.pump;
  });
});
