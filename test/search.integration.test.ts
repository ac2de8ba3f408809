
import { describe, expect, it } from "vitest";
import * as Id from "../server/id";
import { type Plan, SearchInput, pageQuery } from "../server/search/search";
import { Session } from "../server/session";
import type { Part } from "../server/session/message";
import { trpcAnswer } from "./app";
import type { Browser } from "./auth";
import { offlineReply } from "./fixtures";
import { twoTeamsSuite } from "./two-teams";

/**
 * Full-text search (issue 33, point 8) through the real tRPC Route Handler with real
 * sign-in cookies: sessions are found by words that are only in their parts (a tool's
 * output, a path), only inside the searching member's team, with snippets as data.
 */


interface Segment {
  text: string;
  match: boolean;
}
interface Hit {
  session: { id: string; title: string };
  title: Segment[];
  snippet: { kind: string; label?: Segment[]; segments: Segment[] };
}
interface DashboardItem {
  session: { id: string };
  match?: { title: Segment[]; snippet?: Hit["snippet"] };
}

describe("full-text search (integration, through HTTP)", () => {
  const teams = twoTeamsSuite("search");

  const search = async (who: Browser, input: Record<string, unknown>) => {
    const answer = await trpcAnswer<{ items: Hit[] }>(teams.app, "search.sessions", input, who.headers);
    expect(answer.status, answer.message).toBe(200);
    return answer.data.items;
  };
  const dashboard = async (who: Browser, searchText: string) => {
    const answer = await trpcAnswer<{ items: DashboardItem[]; totals: { sessions: number } }>(teams.app, "dashboard.list", { search: searchText }, who.headers);
    expect(answer.status, answer.message).toBe(200);
    return answer.data;
  };
  const marked = (segments: Segment[]) => segments.filter((s) => s.match).map((s) => s.text);

  /** A session of Ann's whose one reply holds `parts` (made from the reply's ids). */
  async function sessionWith(title: string, parts: (base: { sessionId: string; messageId: string }) => Part[]) {
    const session = await Session.create(teams.annCtx, { projectId: teams.projectId, title });
    const reply = offlineReply(session.id, Id.ascending("message"), session.directory);
    await Session.updateMessage(teams.annCtx, reply);
    for (const part of parts({ sessionId: session.id, messageId: reply.id })) await Session.updatePart(teams.annCtx, part);
    return session;
  }

  const bash = (base: { sessionId: string; messageId: string }, output: string): Part => ({
    ...base,
    id: Id.ascending("part"),
    type: "tool",
    callId: Id.ascending("part"),
    tool: "bash",
    state: { status: "completed", input: { command: "make check" }, output, title: "Run the checks", metadata: {}, time: { start: 1, end: 2 } },
  });

  it("acceptance 1: a word only in a tool output finds the session, in the search and on the dashboard", async () => {
    const found = await sessionWith("Fix the build", (base) => [bash(base, "compiling…\nerror: the xylophonist module is missing\n")]);
    await sessionWith("Unrelated work", (base) => [bash(base, "all good")]);
    const hits = await search(teams.ann, { query: "xylophonist" });
    expect(hits.map((hit) => hit.session.id)).toEqual([found.id]);
    const [hit] = hits;
    expect(hit?.snippet.kind).toBe("tool");
    expect(marked(hit?.snippet.segments ?? [])).toEqual(["xylophonist"]);
    expect(hit?.snippet.segments.map((s) => s.text).join("")).toContain("error: the xylophonist module is missing");
    expect(hit?.snippet.label?.map((s) => s.text).join("")).toBe("Run the checks");

    const board = await dashboard(teams.ann, "xylophonist");
    expect(board.items.map((item) => item.session.id)).toEqual([found.id]);
    expect(board.totals.sessions).toBe(1);
    expect(marked(board.items[0]?.match?.snippet?.segments ?? [])).toEqual(["xylophonist"]);
  });

  it("another team never sees the session: search and dashboard find nothing for its member", async () => {
    const secret = await sessionWith("Quarterly numbers", (base) => [bash(base, "wrote the report on the okapimarket deal")]);
    expect((await search(teams.ann, { query: "okapimarket" })).map((hit) => hit.session.id)).toEqual([secret.id]);
    expect(await search(teams.bob, { query: "okapimarket" })).toEqual([]);
    expect(await search(teams.bob, { query: "Quarterly" })).toEqual([]);
    const board = await dashboard(teams.bob, "okapimarket");
    expect(board.items).toEqual([]);
    expect(board.totals.sessions).toBe(0);
    // Without sign-in, nothing at all.
    const anonymous = await trpcAnswer(teams.app, "search.sessions", { query: "okapimarket" }, new Headers());
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain(secret.id);
  });

  it("snippets highlight the match and carry markup as plain text (<script> is never markup)", async () => {
    const text = 'Here is the page: <script>alert("gnuzebra")</script> <b>bold</b> & more';
    const session = await sessionWith("Markup", (base) => [{ ...base, id: Id.ascending("part"), type: "text", text, time: { start: 1, end: 2 } }]);
    const [hit] = await search(teams.ann, { query: "gnuzebra" });
    expect(hit?.session.id).toBe(session.id);
    expect(hit?.snippet.kind).toBe("text");
    // Segments are data: together they are the text as written, and only the word is a match.
    expect(hit?.snippet.segments.map((s) => s.text).join("")).toBe(text);
    expect(marked(hit?.snippet.segments ?? [])).toEqual(["gnuzebra"]);
    expect(hit?.snippet.segments.find((s) => !s.match && s.text.includes("<script>"))).toBeDefined();
  });

  it("a path is found by each of its words, and by the whole path", async () => {
    const session = await sessionWith("Paths", (base) => [
      { ...base, id: Id.ascending("part"), type: "patch", hash: "abc", files: ["/srv/app/src/components/quokka-list.tsx"] },
    ]);
    for (const query of ["quokka", "quokka-list.tsx", "components/quokka-list"]) {
      const hits = await search(teams.ann, { query });
      expect(hits.map((hit) => hit.session.id), query).toEqual([session.id]);
      expect(hits[0]?.snippet.kind).toBe("patch");
    }
    // The words must be in this order (a term is a phrase).
    expect(await search(teams.ann, { query: "list-quokka" })).toEqual([]);
  });

  it("a streaming text part is indexed when it ends, not before", async () => {
    const base = await sessionWith("Streaming", () => []);
    const [message] = await teams.app.rt.services.db.message.findMany({ where: { sessionId: base.id } });
    if (!message) throw new Error("no message");
    const part: Part = { id: Id.ascending("part"), sessionId: base.id, messageId: message.id, type: "text", text: "the wombatcloud is", time: { start: 1 } };
    await Session.updatePart(teams.annCtx, part);
    expect(await search(teams.ann, { query: "wombatcloud" })).toEqual([]);
    await Session.updatePart(teams.annCtx, { ...part, text: "the wombatcloud is ready", time: { start: 1, end: 2 } });
    expect((await search(teams.ann, { query: "wombatcloud" })).map((hit) => hit.session.id)).toEqual([base.id]);
  });

  it("a search with a NUL character is refused with a 400 that says why, on both doors", async () => {
    for (const procedure of ["search.sessions", "dashboard.list"]) {
      const input = procedure === "search.sessions" ? { query: "a\u0000b" } : { search: "a\u0000b" };
      const answer = await trpcAnswer(teams.app, procedure, input, teams.ann.headers);
      expect(answer.status, procedure).toBe(400);
      expect(answer.message, procedure).toContain("a search must not contain the NUL character");
    }
  });

  it("titles still match as substrings, marked; archived sessions only when asked; pages by cursor", async () => {
    const a = await sessionWith("Platypus login", () => []);
    const b = await sessionWith("Platypus logout", () => []);
    await Session.update(teams.annCtx, b.id, { archived: true });
    const hits = await search(teams.ann, { query: "platyp" });
    expect(hits.map((hit) => hit.session.id)).toEqual([a.id]);
    expect(hits[0]?.snippet.kind).toBe("title");
    expect(marked(hits[0]?.title ?? [])).toEqual(["Platyp"]);
    expect((await search(teams.ann, { query: "platyp", archived: "all" })).map((hit) => hit.session.id)).toEqual([b.id, a.id]);
    const first = await trpcAnswer<{ items: Hit[]; nextCursor?: string }>(teams.app, "search.sessions", { query: "platyp", archived: "all", limit: 1 }, teams.ann.headers);
    expect(first.data.items.map((hit) => hit.session.id)).toEqual([b.id]);
    const second = await trpcAnswer<{ items: Hit[]; nextCursor?: string }>(teams.app, "search.sessions", { query: "platyp", archived: "all", limit: 1, cursor: first.data.nextCursor }, teams.ann.headers);
    expect(second.data.items.map((hit) => hit.session.id)).toEqual([a.id]);
  });

  it("both forms of the page query (matches found first, or sessions walked newest first) find the same sessions, in the same order", async () => {
    const made = [];
    for (const title of ["Wombat one", "Second", "Third wombat"]) made.push(await sessionWith(title, (base) => (title === "Second" ? [bash(base, "the wombat test passed")] : [])));
    await sessionWith("Unrelated", (base) => [bash(base, "nothing here")]);
    const ids = async (plan: Plan, input: Record<string, unknown>, teamId = teams.annCtx.actor.teamId) => {
      const rows = await teams.app.rt.services.db.$queryRaw<{ id: string }[]>(pageQuery(teamId, SearchInput.parse(input), plan));
      return rows.map((row) => row.id);
    };
    const expected = made.map((session) => session.id).reverse();
    // A page holds `limit` sessions, and one more that says another page follows.
    for (const limit of [20, 2]) {
      for (const fewParts of [true, false]) {
        for (const fewTitles of [true, false]) expect(await ids({ fewParts, fewTitles }, { query: "wombat", limit })).toEqual(expected.slice(0, limit + 1));
      }
    }
    // Another team's member finds none of them in either form.
    const bobTeam = (await (await import("../server/context")).memberContext(teams.bob.headers)).actor.teamId;
    for (const few of [true, false]) expect(await ids({ fewParts: few, fewTitles: few }, { query: "wombat" }, bobTeam)).toEqual([]);
  });
});
