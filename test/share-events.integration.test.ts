import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { Session } from "../server/session";
import type { Runtime } from "./app";
import { makeTeam, type TeamFixture } from "./db";
import { userMessage } from "./fixtures";
import { type Frame, sseReader } from "./sse";
import { appSuite } from "./suite";

/** The share link's SSE Route Handler, through the process runtime as in production. */

type ShareRoute = typeof import("../app/api/share/[shareId]/events/route");



const sessionOf = (frame: Frame): string | undefined => {
  const payload = frame.payload as { info?: { id: string }; sessionId?: string };
  return payload.info?.id ?? payload.sessionId;
};

describe("share SSE Route Handler (integration)", () => {
  // The runtime recovers every session of its database at boot: the app gets its own database.
  const app = appSuite("share_sse", (dir) => ({ PARLEY_PROJECT_DIR: path.join(dir, "project"), PARLEY_DATA_DIR: path.join(dir, "data") }));
  let route: ShareRoute;
  let rt: Runtime;
  let team: TeamFixture;

  beforeAll(async () => {
    route = await import("../app/api/share/[shareId]/events/route");
    rt = app.rt;
    team = await makeTeam({ db: rt.services.db, bus: rt.services.bus });
  });

  const open = (shareId: string, signal?: AbortSignal) =>
    route.GET(new Request(`http://parley.test/api/share/${shareId}/events`, { signal }), { params: Promise.resolve({ shareId }) });

  async function shared(title: string) {
    const info = await Session.create(team.ctx, { projectId: team.projectId, title });
    const shareId = (await Session.share(team.ctx, info.id)).share!.id;
    return { info, shareId };
  }

  it("answers an unknown or revoked link with 404 JSON", async () => {
    const unknown = await open("AAAAAAAAAAAAAAAAAAAAAA");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    const { info, shareId } = await shared("Revoked before");
    await Session.unshare(team.ctx, info.id);
    const revoked = await open(shareId);
    expect(revoked.status).toBe(404);
  });

  it("streams the shared session and its descendants live, and nothing else", async () => {
    const { info, shareId } = await shared("Live shared");
    const unrelated = await Session.create(team.ctx, { projectId: team.projectId, title: "Unrelated" });
    const before = rt.services.bus.subscriberCount;
    const abort = new AbortController();
    const res = await open(shareId, abort.signal);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const stream = sseReader(res);
    await stream.until(() => stream.events.length >= 1, "the initial state");
    expect(stream.events[0]).toMatchObject({ name: "session.updated", payload: { info: { id: info.id, share: { id: shareId } } } });
    // The opening is complete: named, with the run status read with it.
    await stream.until(() => stream.events.length >= 2, "stream.ready");
    expect(stream.events[1]).toMatchObject({ name: "stream.ready", payload: { sessionId: info.id, status: { type: "idle" } } });

    await Session.update(team.ctx, unrelated.id, { title: "Unrelated, renamed" });
    await Session.update(team.ctx, info.id, { title: "Live shared, renamed" });
    const child = await Session.create(team.ctx, { projectId: team.projectId, parentId: info.id, title: "A child" });
    const grandchild = await Session.create(team.ctx, { projectId: team.projectId, parentId: child.id, title: "A grandchild" });
    await Session.updateMessage(team.ctx, userMessage(grandchild.id));
    await Session.updateMessage(team.ctx, userMessage(unrelated.id));
    await Session.update(team.ctx, info.id, { title: "Last" });

    await stream.until(() => stream.events.some((e) => e.name === "session.updated" && (e.payload as { info: { title: string } }).info.title === "Last"), "the last update");
    const names = stream.events.map((e) => `${e.name}:${sessionOf(e)}`);
    expect(names).toContain(`session.created:${child.id}`);
    expect(names).toContain(`session.created:${grandchild.id}`);
    expect(stream.events.some((e) => e.name === "message.updated" && (e.payload as { info: { sessionId: string } }).info.sessionId === grandchild.id)).toBe(true);
    expect(stream.events.map(sessionOf)).not.toContain(unrelated.id);
    expect(stream.events.some((e) => e.name === "message.updated" && (e.payload as { info: { sessionId: string } }).info.sessionId === unrelated.id)).toBe(false);
    // Session infos reach the viewer without the server directory.
    const infos = stream.events.filter((e) => e.name.startsWith("session.")).map((e) => (e.payload as { info: { directory: string } }).info);
    expect(infos.length).toBeGreaterThanOrEqual(4);
    expect(info.directory).not.toBe("");
    for (const seen of infos) expect(seen.directory).toBe("");

    abort.abort();
    await stream.pump;
    expect(rt.services.bus.subscriberCount).toBe(before);
  });

  it("on unshare sends share.revoked, ends the stream at once and delivers nothing more", async () => {
    const { info, shareId } = await shared("To revoke");
    const before = rt.services.bus.subscriberCount;
    const stream = sseReader(await open(shareId));
    await stream.until(() => stream.events.length >= 1, "the initial state");
    await Session.unshare(team.ctx, info.id);
    await stream.pump;
    expect(stream.closed()).toBe(true);
    expect(stream.events.at(-1)).toMatchObject({ name: "share.revoked", payload: { shareId, sessionId: info.id } });
    // The revoking update itself (which no longer carries the share) is not forwarded.
    expect(stream.events.filter((e) => e.name === "session.updated")).toHaveLength(1);
    expect(rt.services.bus.subscriberCount).toBe(before);
    // Reconnecting is refused.
    expect((await open(shareId)).status).toBe(404);
  });

  it("ends the stream with share.revoked when the shared session is deleted", async () => {
    const { info, shareId } = await shared("To delete");
    const stream = sseReader(await open(shareId));
    await stream.until(() => stream.events.length >= 1, "the initial state");
    await Session.remove(team.ctx, info.id);
    await stream.pump;
    expect(stream.events.at(-1)?.name).toBe("share.revoked");
  });
});
