import type { Browser, BrowserContext } from "@playwright/test";
import { SessionPage } from "../pages/session-page";
import { expect, test } from "./fixtures";
import type { Cluster } from "./support/cluster";

/**
 * Issue 33, point 9: presence across instances. Two members of one team open the same
 * session, one through each server: each sees the other in the session's header within
 * 2 s, sees them typing, and sees them go when their tab closes — the heartbeats reach
 * the other instance over PostgreSQL.
 */

/** A teammate invited by the cluster's user, signed up and in the team; their cookie. */
async function teammate(cluster: Cluster): Promise<{ cookie: string; name: string; id: string }> {
  const base = cluster.instance("b").url;
  const owner = cluster.api("a");
  const teamId = (await owner.data<{ id: string }>("team.current", null, "GET")).id;
  const email = `mate-${Date.now().toString(36)}@instances.parley.test`;
  const name = "Mate Presence";
  const call = async (path: string, body: unknown, cookie?: string) => {
    const res = await fetch(`${base}/api/auth${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return res;
  };
  const invited = (await (await call("/organization/invite-member", { email, role: "member", organizationId: teamId }, cluster.cookie)).json()) as { id: string };
  const signedUp = await call("/sign-up/email", { email, name, password: "presence password 1234" });
  const cookie = signedUp.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  await call("/organization/accept-invitation", { invitationId: invited.id }, cookie);
  const user = await cluster.db.user.findFirstOrThrow({ where: { email }, select: { id: true } });
  return { cookie, name, id: user.id };
}

async function contextWith(browser: Browser, baseURL: string, cookie: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL });
  await context.addCookies(
    cookie.split("; ").map((pair) => {
      const at = pair.indexOf("=");
      return { name: pair.slice(0, at), value: pair.slice(at + 1), domain: "127.0.0.1", path: "/" };
    }),
  );
  return context;
}

test("a member viewing a session on B shows in its header on A within 2 s, typing too, and is gone once their tab closes", async ({ cluster, browser }) => {
  const { id } = await cluster.session("a", "Who is here, across instances");
  const mate = await teammate(cluster);

  const ownerContext = await cluster.browser(browser, "a");
  const ownerPage = await ownerContext.newPage();
  await new SessionPage(ownerPage).goto(id);
  const ownerSees = ownerPage.getByTestId("presence-viewer");
  await expect(ownerSees).toHaveCount(0);

  const mateContext = await contextWith(browser, cluster.instance("b").url, mate.cookie);
  const matePage = await mateContext.newPage();
  await new SessionPage(matePage).goto(id);
  // From the moment the teammate's page shows the session, the owner's (on the other instance) shows them within 2 s.
  await expect(ownerSees).toHaveCount(1, { timeout: 2_000 });
  await expect(ownerSees).toHaveAttribute("data-user-id", mate.id);
  await expect(ownerSees).toContainText(mate.name);
  // And the teammate sees the owner; neither sees themselves.
  await expect(matePage.getByTestId("presence-viewer")).toHaveCount(1, { timeout: 2_000 });
  await expect(matePage.getByTestId("presence-viewer")).not.toHaveAttribute("data-user-id", mate.id);

  // Typing shows on the other instance, and clears when the text is gone.
  const box = matePage.getByRole("textbox", { name: "Message" });
  await box.pressSequentially("hello th");
  await expect(ownerPage.getByTestId("presence-typing")).toHaveText(`${mate.name} is typing…`, { timeout: 2_000 });
  await expect(ownerSees).toHaveAttribute("data-typing", "true");
  await box.fill("");
  await expect(ownerPage.getByTestId("presence-typing")).toHaveText("", { timeout: 2_000 });

  // The teammate closes the tab: gone within a few seconds.
  await matePage.close({ runBeforeUnload: true });
  await expect(ownerSees).toHaveCount(0, { timeout: 4_000 });
  await mateContext.close();
  await ownerContext.close();
});
