import type { Browser, Page } from "@playwright/test";
import * as Id from "../server/id";
import { withActor } from "../server/services";
import { Session } from "../server/session";
import { expect, test } from "./fixtures";
import { AuthPages, TeamPageObject } from "./pages/auth-pages";
import { Chat } from "./pages/chat";
import { SessionListPage } from "./pages/session-list-page";
import { SessionPage } from "./pages/session-page";
import { SharePage } from "./pages/share-page";
import { prompt, reply } from "./support/api";
import { type Person, person, tag } from "./support/people";

/**
 * Who said what: each user message names its author — "You" for your own, the teammate's
 * name for theirs, names only on a share page — and the session list shows who started
 * each session and which ones are running.
 */

/** A teammate invited from the Team page (the signed-in `page` is the team's owner), signed up in a browser of their own. */
async function inviteTeammate(page: Page, browser: Browser, who: Person): Promise<Page> {
  const team = new TeamPageObject(page);
  await team.goto();
  const link = await team.invite(who.email);
  const mate = await (await browser.newContext()).newPage();
  await new AuthPages(mate).acceptInvitation(link, who);
  return mate;
}

function author(chat: Chat, text: string) {
  return chat.user(text).getByTestId("message-author");
}

test("a teammate's message shows the teammate's name in the chat and on the share page; your own reads You", async ({ page, browser, seed, account }) => {
  const ada = person("Ada");
  const matePage = await inviteTeammate(page, browser, ada);
  const session = await seed.session({ title: `Who said what ${tag()}` });

  const view = new SessionPage(page);
  const chat = new Chat(page);
  await view.goto(session.id);
  const mine = `Owner here ${tag()}`;
  await chat.ask(mine);
  await chat.waitIdle();
  await expect(author(chat, mine)).toHaveText("You");

  // The teammate writes in the same session; the owner's open page shows their name live.
  await new SessionPage(matePage).goto(session.id);
  const mateChat = new Chat(matePage);
  const theirs = `Teammate here ${tag()}`;
  await mateChat.ask(theirs);
  await expect(author(chat, theirs)).toHaveText(ada.name);
  await expect(chat.user(theirs)).toHaveAttribute("data-author-id", /.+/);
  await expect(author(mateChat, theirs)).toHaveText("You");
  await expect(author(mateChat, mine)).toHaveText(account.name);
  await mateChat.waitIdle();

  // After a reload, from the stored messages.
  await page.reload();
  await expect(author(chat, theirs)).toHaveText(ada.name);
  await expect(author(chat, mine)).toHaveText("You");

  // A share link names both, and no one is "You" there; no email address is shown.
  const url = (await Session.share(seed.ctx, session.id)).share?.url ?? "";
  const viewerPage = await (await browser.newContext()).newPage();
  const viewer = new SharePage(viewerPage);
  await viewer.goto(url);
  const shown = new Chat(viewerPage);
  await expect(author(shown, mine)).toHaveText(account.name);
  await expect(author(shown, theirs)).toHaveText(ada.name);
  await expect(viewerPage.getByTestId("message-author").filter({ hasText: /^You$/ })).toHaveCount(0);
  const html = await viewerPage.content();
  expect(html).not.toContain(ada.email);
  expect(html).not.toContain(account.email);
});

test("the session list names each session's author and shows, live, which ones are running", async ({ page, seed }) => {
  // A teammate of the worker's team, with a session of their own.
  const mateId = Id.ascending("user");
  const mateName = `Grace ${tag()}`;
  await seed.db.user.create({ data: { id: mateId, email: `${mateId}@e2e.parley.test`, name: mateName } });
  await seed.db.membership.create({ data: { teamId: seed.ctx.actor.teamId, userId: mateId, role: "member" } });
  const theirs = await Session.create(withActor(seed.ctx, { userId: mateId, teamId: seed.ctx.actor.teamId }), { projectId: seed.projectId, title: `Theirs ${tag()}` });
  const mine = await seed.session({ title: `Mine ${tag()}` });

  const list = new SessionListPage(page);
  await list.goto();
  await expect(list.row(theirs.title).getByTestId("session-author")).toHaveText(`by ${mateName}`);
  await expect(list.row(mine.title).getByTestId("session-author")).toHaveText("by you");
  await expect(list.row(theirs.title).getByTestId("session-running")).toHaveCount(0);

  // Work starts in their session (it waits for a permission answer, so it keeps running).
  await prompt(page.request, theirs.id, `run \`echo list-running-${tag()}\``);
  const running = list.row(theirs.title).getByTestId("session-running");
  await expect(running).toHaveText("Working");
  await expect(list.row(mine.title).getByTestId("session-running")).toHaveCount(0);

  const waiting = { sessionId: theirs.id, status: "pending" };
  await expect.poll(() => seed.db.permissionRequest.count({ where: waiting })).toBe(1);
  const pending = await seed.db.permissionRequest.findFirstOrThrow({ where: waiting });
  await reply(page.request, pending.id, "once");
  await expect(running).toHaveCount(0);
});
