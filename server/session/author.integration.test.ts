import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, describe, expect, it } from "vitest";
import { databaseUrl, makeTeam, testDb, type TeamFixture } from "../../test/db";
import { userMessage } from "../../test/fixtures";
import { recorder } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import { PrismaClient } from "../db/generated/client";
import * as Id from "../id";
import { withActor } from "../services";
import { ShareRedaction, ShareView } from "../share";
import * as Event from "./events";
import type { Message, UserMessage } from "./message";
import { messagePage } from "./transcript";
import { Session } from ".";

/**
 * Who said what: the prompt path stores the actor as the author of each user message;
 * every read names the author (a message stored before authors were, by its session's
 * author), with the names of a whole page read in one statement.
 */

/** A Prisma client that counts the statements it sends. */
const counting = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl(), max: 2 }), log: [{ emit: "event", level: "query" }] });
let statements = 0;
counting.$on("query", () => {
  statements++;
});
afterAll(() => counting.$disconnect());

async function teammate(team: TeamFixture, name: string) {
  const userId = Id.ascending("user");
  await testDb().user.create({ data: { id: userId, email: `${userId}@test.local`, name } });
  await testDb().membership.create({ data: { teamId: team.teamId, userId, role: "member" } });
  return { userId, ctx: withActor(team.ctx, { userId, teamId: team.teamId }) };
}

/** A user message as a writer from before authors were recorded left it: no author. */
async function oldMessage(team: TeamFixture, sessionId: string): Promise<UserMessage> {
  const info = userMessage(sessionId, { model: { providerId: "offline", modelId: "parley-offline" } });
  await Session.updateMessage(team.ctx, info);
  return info;
}

const say = (text: string) => ({ parts: [{ type: "text" as const, text }], noReply: true });
const authorOf = (info: Message) => (info.role === "user" ? info.author : undefined);

describe("message authors (integration)", () => {
  it("a prompt is stored with its actor; events, pages, single reads and the history name each author; an old row reads as the session author's", async () => {
    const bus = new Bus();
    const team = await makeTeam({ bus });
    const ada = await teammate(team, "Ada Lovelace");
    const session = await Session.create(team.ctx, { projectId: team.projectId, title: "Authors" });
    const rec = recorder(bus, team.teamId, session.id);

    const old = await oldMessage(team, session.id);
    const mine = await Session.prompt(team.ctx, { sessionId: session.id, ...say("mine") });
    const theirs = await Session.prompt(ada.ctx, { sessionId: session.id, ...say("theirs") });

    const tester = { id: team.userId, name: "Tester" };
    const lovelace = { id: ada.userId, name: "Ada Lovelace" };
    expect(mine.author).toEqual(tester);
    expect(theirs.author).toEqual(lovelace);

    // Stored as the column, never in the message's JSON; the old row keeps no author.
    const rows = await testDb().message.findMany({ where: { sessionId: session.id }, orderBy: { id: "asc" } });
    expect(rows.map((row) => row.authorId)).toEqual([null, team.userId, ada.userId]);
    for (const row of rows) expect(row.data).not.toHaveProperty("author");

    // The events of the new messages carry their authors.
    const published = rec.events.filter((e) => e.name === Event.MessageUpdated.name).map((e) => (e.payload as { info: Message }).info);
    expect(published.filter((info) => info.id !== old.id).map(authorOf)).toEqual([tester, lovelace]);

    // Every read names them; the old row falls back to the session's author.
    const page = await Session.messages(team.ctx, session.id);
    expect(page.messages.map((m) => authorOf(m.info))).toEqual([tester, tester, lovelace]);
    expect(authorOf((await Session.message(team.ctx, session.id, theirs.id)).info)).toEqual(lovelace);
    expect(authorOf((await Session.message(team.ctx, session.id, old.id)).info)).toEqual(tester);
    expect((await Session.allMessages(team.ctx, session.id)).map((m) => authorOf(m.info))).toEqual([tester, tester, lovelace]);

    // A teammate's session: its old rows are that teammate's.
    const theirSession = await Session.create(ada.ctx, { projectId: team.projectId, title: "Ada's" });
    await oldMessage(team, theirSession.id);
    expect((await Session.messages(team.ctx, theirSession.id)).messages.map((m) => authorOf(m.info))).toEqual([lovelace]);
  });

  it("a fork keeps who wrote each message (an old row's author written out), though the fork is the forker's", async () => {
    const team = await makeTeam();
    const ada = await teammate(team, "Ada");
    const session = await Session.create(team.ctx, { projectId: team.projectId, title: "Forked" });
    await oldMessage(team, session.id);
    await Session.prompt(team.ctx, { sessionId: session.id, ...say("mine") });

    const fork = await Session.fork(ada.ctx, { sessionId: session.id });
    expect(fork.authorId).toBe(ada.userId);
    const rows = await testDb().message.findMany({ where: { sessionId: fork.id }, orderBy: { id: "asc" } });
    expect(rows.map((row) => row.authorId)).toEqual([team.userId, team.userId]);
    expect((await Session.messages(ada.ctx, fork.id)).messages.map((m) => authorOf(m.info)?.name)).toEqual(["Tester", "Tester"]);
  });

  it("a page names all its authors with one statement, however many there are", async () => {
    const team = await makeTeam();
    const session = await Session.create(team.ctx, { projectId: team.projectId, title: "Many authors" });
    const page = async () => {
      const row = await testDb().session.findUniqueOrThrow({ where: { id: session.id } });
      statements = 0;
      const read = await messagePage(counting, row.id, { limit: 50 });
      return { read, statements };
    };

    await Session.prompt(team.ctx, { sessionId: session.id, ...say("one author") });
    const one = await page();
    for (let i = 0; i < 6; i++) {
      const mate = await teammate(team, `Mate ${i}`);
      await Session.prompt(mate.ctx, { sessionId: session.id, ...say(`from mate ${i}`) });
    }
    await oldMessage(team, session.id);
    const seven = await page();

    expect(new Set(seven.read.messages.map((m) => authorOf(m.info)?.name)).size).toBe(7);
    expect(authorOf(seven.read.messages.at(-1)!.info)?.name).toBe("Tester");
    // Messages, their parts, their authors.
    expect(one.statements).toBe(3);
    expect(seven.statements).toBe(one.statements);
  });

  it("the session list names each session's author, in a fixed number of statements", async () => {
    const team = await makeTeam();
    const ada = await teammate(team, "Ada");
    const mine = await Session.create(team.ctx, { projectId: team.projectId, title: "Mine" });
    const theirs = await Session.create(ada.ctx, { projectId: team.projectId, title: "Theirs" });
    const list = await Session.list(team.ctx);
    const authors = new Map(list.items.map((item) => [item.id, item.author]));
    expect(authors.get(mine.id)).toEqual({ id: team.userId, name: "Tester" });
    expect(authors.get(theirs.id)).toEqual({ id: ada.userId, name: "Ada" });

    const countList = async () => {
      statements = 0;
      await Session.list({ ...team.ctx, db: counting });
      return statements;
    };
    const two = await countList();
    expect(two).toBeGreaterThan(0);
    // The sessions (with their children's count), then their share links, authors, projects and workspaces: one statement each, whatever the page holds.
    expect(two).toBeLessThanOrEqual(5);
    for (let i = 0; i < 4; i++) await Session.create((await teammate(team, `Mate ${i}`)).ctx, { projectId: team.projectId, title: `Mate ${i}` });
    expect(await countList()).toBe(two);
  });

  it("a share link shows authors by name, never an email address", async () => {
    const team = await makeTeam();
    const ada = await teammate(team, "Ada Lovelace");
    const emailed = await teammate(team, "grace@navy.example");
    const session = await Session.create(team.ctx, { projectId: team.projectId, title: "Shared" });
    await Session.prompt(ada.ctx, { sessionId: session.id, ...say("from Ada") });
    await Session.prompt(emailed.ctx, { sessionId: session.id, ...say("from Grace") });
    const shared = await Session.share(team.ctx, session.id);
    const shareId = shared.share?.id ?? "";

    const seen = await ShareView.page(team.ctx, { shareId });
    expect(seen.messages.messages.map((m) => authorOf(m.info)?.name)).toEqual(["Ada Lovelace", "grace"]);
    expect(JSON.stringify(seen)).not.toContain("@navy.example");
    expect(ShareRedaction.nameForViewer("Ada Lovelace")).toBe("Ada Lovelace");
    expect(ShareRedaction.nameForViewer(" ada@example.org ")).toBe("ada");
    expect(ShareRedaction.nameForViewer("Ada @ home")).toBe("Ada @ home");
  });
});
