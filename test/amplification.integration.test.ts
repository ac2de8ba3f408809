
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PEER_HEADER } from "../server/auth/client-address";
import * as Id from "../server/id";
import type { Part } from "../server/session/message";
import { SessionEvent } from "../server/session";
import { PUBLIC_PROCEDURES } from "../lib/trpc-batch";
import { type TestApp, allProcedures, openApp, projectAppEnv, trpcData, type SessionEvents, type TeamEvents, type ShareEvents, type TrpcRoute, type Auth } from "./app";
import { type Browser, ORIGIN, joinTeam } from "./auth";
import { annSignsUp } from "./two-teams";
import { type Frame, sseReader } from "./sse";
// What the launcher preloads into the server (`node --import`): the peer header is the server's own.
import "../scripts/peer-address.mjs";

/**
 * The hardening issue's amplification holes (item 8), through the real Route Handlers:
 * tRPC batches are bounded (and not offered to share links or anonymous callers), a
 * stream that connects is sent what is streaming now on its own stream only, open streams
 * are capped per user, per address and per share link, and a client that stops reading is
 * dropped instead of queued for without bound.
 */

describe("amplification limits (integration, through HTTP)", () => {
  let app: TestApp;
  let auth: Auth;
  let trpc: TrpcRoute;
  let sessionEvents: SessionEvents;
  let teamEvents: TeamEvents;
  let shareEvents: ShareEvents;
  let ann: Browser;
  let teamId: string;
  let projectId: string;
  const anonymous = new Headers();
  /** Streams the current test opened, ended after it. */
  let aborts: AbortController[] = [];

  const ok = <T>(procedure: string, input: unknown, who: Browser) => trpcData<T>(app, procedure, input, who.headers);

  const member = (email: string) => joinTeam(auth, ann, teamId, email);

  /** A batch of queries in one GET, as tRPC's batch link sends it. */
  async function batch(calls: [procedure: string, input?: unknown][], headers: Headers) {
    const inputs = Object.fromEntries(calls.flatMap(([, input], i) => (input === undefined ? [] : [[i, input]])));
    const url = `${ORIGIN}/api/trpc/${calls.map(([procedure]) => procedure).join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify(inputs))}`;
    const res = await trpc.GET(new Request(url, { headers }));
    return { status: res.status, text: await res.text() };
  }

  /** Headers of `who` (or nobody) coming from `address` (stamped as the launcher does). */
  function from(address: string | undefined, who?: Browser): Headers {
    const headers = new Headers(who?.headers);
    if (address) headers.set(PEER_HEADER, address);
    return headers;
  }

  /** Opens a live stream through its Route Handler; the response, and the way to leave. */
  async function stream(kind: "session" | "team" | "share", id: string, headers: Headers): Promise<Response> {
    const abort = new AbortController();
    aborts.push(abort);
    const { signal } = abort;
    if (kind === "session") {
      return sessionEvents.GET(new Request(`${ORIGIN}/api/sessions/${id}/events`, { headers, signal }), { params: Promise.resolve({ sessionId: id }) });
    }
    if (kind === "team") return teamEvents.GET(new Request(`${ORIGIN}/api/teams/${id}/events`, { headers, signal }), { params: Promise.resolve({ teamId: id }) });
    return shareEvents.GET(new Request(`${ORIGIN}/api/share/${id}/events`, { headers, signal }), { params: Promise.resolve({ shareId: id }) });
  }

  async function opened(res: Response) {
    expect(res.status).toBe(200);
    const reader = sseReader(res);
    return reader;
  }

  async function refused(res: Response, status: number, code: string) {
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
  }

  async function newSession(title: string): Promise<string> {
    return (await ok<{ id: string }>("session.create", { projectId, title }, ann)).id;
  }

  async function shareOf(sessionId: string): Promise<string> {
    return (await ok<{ share: { id: string } }>("session.share", { sessionId }, ann)).share.id;
  }

  beforeAll(async () => {
    app = await openApp("amplification", (dir) =>
      projectAppEnv(dir, {
        PARLEY_SIGNUP: "invite",
        PARLEY_LIVE_STREAMS_PER_USER: "3",
        PARLEY_LIVE_STREAMS_PER_ADDRESS: "4",
        PARLEY_LIVE_STREAMS_PER_SHARE: "2",
        PARLEY_LIVE_STREAMS_PER_ADDRESS_PER_SHARE: "1",
      }),
    );
    trpc = await import("../app/api/trpc/[trpc]/route");
    sessionEvents = await import("../app/api/sessions/[sessionId]/events/route");
    teamEvents = await import("../app/api/teams/[teamId]/events/route");
    shareEvents = await import("../app/api/share/[shareId]/events/route");
    ({ auth, ann, teamId, projectId } = await annSignsUp(app, "amplification"));
  });

  afterEach(() => {
    for (const abort of aborts) abort.abort();
    aborts = [];
  });

  afterAll(async () => {
    await app?.close();
  });

  describe("tRPC batches", () => {
    it("the browser sends unbatched exactly the procedures the server never batches (those callable without a sign-in)", () => {
      const procedures = allProcedures() as Record<string, { _def: { meta?: { public?: boolean } } }>;
      const open = Object.entries(procedures).filter(([, procedure]) => procedure._def.meta?.public === true).map(([name]) => name);
      expect(new Set(open)).toEqual(PUBLIC_PROCEDURES);
    });

    it("a member's batch holds at most 10 calls; a longer one is a 400 before anything runs", async () => {
      const ten = await batch(Array.from({ length: 10 }, () => ["team.current"] as [string]), ann.headers);
      expect(ten.status).toBe(200);
      expect(JSON.parse(ten.text)).toHaveLength(10);
      const eleven = await batch(Array.from({ length: 11 }, () => ["team.current"] as [string]), ann.headers);
      expect(eleven.status).toBe(400);
      expect(eleven.text).toContain("Batch call exceeds maximum size");
      const thousand = await batch(Array.from({ length: 1000 }, () => ["share.page", { shareId: "shr_x" }] as [string, unknown]), anonymous);
      expect(thousand.status).toBe(400);
      expect(thousand.text.length).toBeLessThan(2_000);
    });

    it("a share link's procedures are never batched, for anyone; alone (even as a batch of one) they work", async () => {
      const shareId = await shareOf(await newSession("shared for batches"));
      const page = ["share.page", { shareId }] as [string, unknown];
      const twice = await batch([page, page], anonymous);
      expect(twice.status).toBe(400);
      expect(twice.text).toContain("cannot be batched");
      expect(twice.text).not.toContain('"result"');
      const mixed = await batch([page, ["team.current"]], ann.headers);
      expect(mixed.status).toBe(400);
      expect((await batch([page], anonymous)).status).toBe(200);
      expect((await app.call("share.page", { shareId }, anonymous)).status).toBe(200);
    });

    it("without a sign-in, a batch is refused as a whole (401) before any of its calls runs", async () => {
      const res = await batch([["team.current"], ["project.list"]], anonymous);
      expect(res.status).toBe(401);
      expect(res.text).toContain("only members may batch");
    });
  });

  describe("live streams", () => {
    const partEvents = (events: Frame[]) => events.filter((e) => e.name === SessionEvent.PartUpdated.name);

    it("a stream that connects gets what is streaming now on its own stream; the others get nothing more", async () => {
      const sessionId = await newSession("streaming now");
      const shareId = await shareOf(sessionId);
      const ready = (reader: ReturnType<typeof sseReader>) => reader.until(() => reader.events.some((e) => e.name === "stream.ready"), "the opening");
      const watching = await opened(await stream("session", sessionId, ann.headers));
      const viewing = await opened(await stream("share", shareId, anonymous));
      await Promise.all([ready(watching), ready(viewing)]);

      // A runner of this process streams an answer (what its processor holds now).
      const messageId = Id.ascending("message");
      const part: Part = { id: Id.ascending("part"), sessionId, messageId, type: "text", text: "the answer so far", time: { start: Date.now() } };
      const { runners } = app.rt.services;
      runners.add({ sessionId, abort: new AbortController(), done: Promise.resolve(), current: { streamingParts: () => [part] } });
      try {
        const joining = await opened(await stream("session", sessionId, ann.headers));
        const joiningViewer = await opened(await stream("share", shareId, anonymous));
        await joining.until(() => partEvents(joining.events).length > 0, "the streaming part");
        await joiningViewer.until(() => partEvents(joiningViewer.events).length > 0, "the streaming part");
        expect(joining.events.map((e) => e.name).slice(0, 3)).toEqual(["session.updated", "stream.ready", SessionEvent.PartUpdated.name]);
        expect(partEvents(joining.events)[0]!.payload).toMatchObject({ part: { id: part.id, text: "the answer so far" } });
        expect(partEvents(joiningViewer.events)[0]!.payload).toMatchObject({ part: { id: part.id, text: "the answer so far" } });

        // Everything published after the joins reaches every stream; a resend never did.
        await ok("session.update", { sessionId, patch: { title: "marker" } }, ann);
        const marked = (reader: ReturnType<typeof sseReader>) =>
          reader.until(() => reader.events.some((e) => JSON.stringify(e.payload).includes('"marker"')), "the marker");
        await Promise.all([marked(watching), marked(viewing), marked(joining), marked(joiningViewer)]);
        expect(partEvents(watching.events)).toEqual([]);
        expect(partEvents(viewing.events)).toEqual([]);
        expect(partEvents(joining.events)).toHaveLength(1);
        expect(partEvents(joiningViewer.events)).toHaveLength(1);
      } finally {
        runners.delete(sessionId);
      }
    });

    it("a user holds at most PARLEY_LIVE_STREAMS_PER_USER streams (429 beyond); leaving, or a refused stream, frees its place", async () => {
      const bob = await member("bob@amplification.test");
      const sessionId = await newSession("bob's");
      for (let i = 0; i < 5; i++) await refused(await stream("session", Id.ascending("session"), from(`10.0.1.${i + 1}`, bob)), 404, "NOT_FOUND");
      await opened(await stream("session", sessionId, from("10.0.1.1", bob)));
      await opened(await stream("session", sessionId, from("10.0.1.2", bob)));
      await opened(await stream("team", teamId, from("10.0.1.3", bob)));
      await refused(await stream("session", sessionId, from("10.0.1.4", bob)), 429, "TOO_MANY");
      await refused(await stream("team", teamId, from("10.0.1.5", bob)), 429, "TOO_MANY");
      aborts[aborts.length - 3]!.abort();
      await opened(await stream("team", teamId, from("10.0.1.6", bob)));
      // Another user is not counted with Bob.
      await opened(await stream("team", teamId, from("10.0.1.7", ann)));
    });

    it("a share link holds at most PARLEY_LIVE_STREAMS_PER_SHARE streams, whoever holds it", async () => {
      const shareId = await shareOf(await newSession("popular"));
      const other = await shareOf(await newSession("quiet"));
      await opened(await stream("share", shareId, from("10.0.2.1")));
      await opened(await stream("share", shareId, from("10.0.2.2")));
      await refused(await stream("share", shareId, from("10.0.2.3")), 429, "TOO_MANY");
      await opened(await stream("share", other, from("10.0.2.3")));
    });

    it("an address holds at most PARLEY_LIVE_STREAMS_PER_ADDRESS streams, signed in or not", async () => {
      const carol = await member("carol@amplification.test");
      const sessionId = await newSession("one address");
      const shares = [await shareOf(await newSession("a")), await shareOf(await newSession("b")), await shareOf(await newSession("c"))];
      await opened(await stream("session", sessionId, from("10.0.3.1", carol)));
      await opened(await stream("team", teamId, from("10.0.3.1", carol)));
      await opened(await stream("share", shares[0]!, from("10.0.3.1")));
      await opened(await stream("share", shares[1]!, from("10.0.3.1")));
      await refused(await stream("share", shares[2]!, from("10.0.3.1")), 429, "TOO_MANY");
      await refused(await stream("session", sessionId, from("10.0.3.1", ann)), 429, "TOO_MANY");
      await opened(await stream("share", shares[2]!, from("10.0.3.2")));
    });

    it("N13: one address holds at most PARLEY_LIVE_STREAMS_PER_ADDRESS_PER_SHARE streams of a share link, so one holder cannot take all its places", async () => {
      const shareId = await shareOf(await newSession("held from two addresses"));
      await opened(await stream("share", shareId, from("10.0.5.1")));
      const again = await stream("share", shareId, from("10.0.5.1"));
      expect(again.status).toBe(429);
      expect(((await again.json()) as { error: { message: string } }).error.message).toContain("for this share link from your address (at most 1)");
      expect(app.rt.services.streams.count(`share:${shareId}`)).toBe(1);
      // Another address still gets in (the link's own cap is 2); the first address's other links are not affected.
      await opened(await stream("share", shareId, from("10.0.5.2")));
      await opened(await stream("share", await shareOf(await newSession("another link")), from("10.0.5.1")));
    });

    it("a client that stops reading is dropped once it is far behind, and its place is freed", async () => {
      const dan = await member("dan@amplification.test");
      const sessionId = await newSession("slow reader");
      const res = await stream("session", sessionId, from("10.0.4.1", dan));
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      while (!text.includes("stream.ready")) text += decoder.decode((await reader.read()).value, { stream: true });
      // The client reads no more; the session keeps changing (2 MB of todo lists, each a moment apart).
      const { bus } = app.rt.services;
      const content = "x".repeat(100_000);
      for (let n = 0; n < 20; n++) {
        const todos = [{ id: `todo_${n}`, content, status: "pending" as const, priority: "low" as const }];
        bus.publish(SessionEvent.TodoUpdated, { sessionId, todos }, { teamId, sessionId });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
      expect(app.rt.services.streams.count(`user:${dan.userId}`)).toBe(0);
      expect(app.rt.services.streams.count("address:10.0.4.1")).toBe(0);
    });
  });
});
