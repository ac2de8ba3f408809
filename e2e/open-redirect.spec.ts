import type { Browser, BrowserContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { AuthPages } from "./pages/auth-pages";

/**
 * `next` on the sign-in page never leads off the site: the browser's URL parser drops
 * tabs and newlines, so `/\t/example.com` is `//example.com` to it — another host. Every
 * request to example.com is answered here (it never reaches the network), so a redirect
 * there would show as that page.
 */

const OFF_SITE = "/sign-in?next=%2F%09%2Fexample.com";

async function guardOffSite(context: BrowserContext): Promise<void> {
  await context.route(/^https?:\/\/([^/]+\.)?example\.com\//, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<h1>off-site</h1>" }));
}

async function freshPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext();
  await guardOffSite(context);
  return context.newPage();
}

function expectOnSite(page: Page, baseURL: string | undefined): void {
  const url = new URL(page.url());
  expect(url.origin).toBe(new URL(baseURL ?? "").origin);
  expect(url.pathname).toBe("/");
}

test("signing in with a next that the URL parser turns into another host lands on this site", async ({ browser, account, baseURL }) => {
  const page = await freshPage(browser);
  await page.goto(OFF_SITE);
  await new AuthPages(page).signIn(account);
  await page.waitForURL((url) => url.pathname === "/" || url.hostname.endsWith("example.com"));
  expectOnSite(page, baseURL);
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
});

test("someone already signed in who opens such a sign-in link stays on this site", async ({ context, page, baseURL }) => {
  await guardOffSite(context);
  await page.goto(OFF_SITE);
  await page.waitForURL((url) => url.pathname === "/" || url.hostname.endsWith("example.com"));
  expectOnSite(page, baseURL);
  await expect(page.getByRole("heading", { name: "Sessions", level: 1 })).toBeVisible();
});
