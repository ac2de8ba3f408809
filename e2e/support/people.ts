import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { AuthPages } from "../pages/auth-pages";
import { E2E_PASSWORD } from "./auth";
import { E2E_DATA_DIR } from "./seed";

/** People and folders of one test, unique across tests and runs. */

export const tag = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;

export interface Person {
  name: string;
  email: string;
  password: string;
}

export const person = (first: string): Person => {
  const t = tag();
  return { name: `${first} ${t}`, email: `${first.toLowerCase()}-${t}@e2e.parley.test`, password: E2E_PASSWORD };
};

/** Signs up through the sign-up page; ends on the session list. */
export async function signUp(page: Page, who: Person): Promise<AuthPages> {
  await page.goto("/sign-up");
  const auth = new AuthPages(page);
  await auth.fillSignUp(who);
  await page.waitForURL((url) => url.pathname === "/");
  return auth;
}

/** A folder inside the server's projects root (<data dir>/projects), for a project of the test's own. */
export function projectFolder(name: string): string {
  mkdirSync(path.resolve(E2E_DATA_DIR, "projects", name), { recursive: true });
  return name;
}
