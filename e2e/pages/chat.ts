import path from "node:path";
import { type Locator, type Page, expect } from "@playwright/test";
import { PageObject } from "./page-object";
import type { Seeder } from "../support/seed";
import { SessionPage } from "./session-page";

/** What the page recorder saw: every DOM state React committed, not just what polling caught. */
export interface Recording {
  /** Per tool part id, its data-tool-status values in the order they appeared. */
  tools: Record<string, string[]>;
  /** Per part id, its type, its message's role and the session status when it first appeared. */
  firstSeen: Record<string, { type: string; role: string | undefined; status: string | undefined }>;
  /** The session statuses shown, in order. */
  statuses: string[];
  /** The most countdowns to a retry ("retrying in N s") shown at once anywhere on the page: one is right. */
  retryNotices: number;
  /** Every distinct text of the retry card's next-attempt line (the transcript's retry card). */
  retryCards: string[];
  /** Per text part id, every distinct text it showed. */
  texts: Record<string, string[]>;
}

declare global {
  interface Window {
    __chatRecording?: Recording;
  }
}

/** The chat of a session page: composer, Stop, status, model picker. */
export class Chat extends PageObject {
  readonly composer = this.page.getByTestId("composer");
  readonly input = this.page.getByRole("textbox", { name: "Message" });
  readonly send = this.page.getByTestId("send-button");
  readonly stop = this.page.getByTestId("stop-button");
  readonly status = this.page.getByTestId("session-status");
  readonly retryCard = this.page.getByTestId("retry-card");
  readonly modelPicker = this.page.getByTestId("model-picker");
  readonly error = this.page.getByTestId("composer-error");
  readonly messages = this.page.getByTestId("message");

  /** Picks `model` in the model picker and waits until the picker shows it chosen. */
  async chooseModel(model: { key: string; label: string }): Promise<void> {
    await this.modelPicker.selectOption(model.key);
    await expect(this.modelPicker.locator("option:checked")).toHaveText(model.label);
  }

  /** Types a message and sends it with Enter. */
  async ask(text: string): Promise<void> {
    await this.input.fill(text);
    await this.input.press("Enter");
    await expect(this.input).toHaveValue("");
  }

  user(text: string): Locator {
    return this.page.locator('[data-testid="message"][data-role="user"]').filter({ hasText: text });
  }

  get assistants(): Locator {
    return this.page.locator('[data-testid="message"][data-role="assistant"]');
  }

  get lastAssistant(): Locator {
    return this.assistants.last();
  }

  part(scope: Locator, type: string): Locator {
    return scope.locator(`[data-part-type="${type}"]`);
  }

  tools(scope: Locator, status?: "pending" | "running" | "completed" | "error"): Locator {
    return scope.locator(status ? `[data-part-type="tool"][data-tool-status="${status}"]` : '[data-part-type="tool"]');
  }

  async waitIdle(timeout = 60_000): Promise<void> {
    await expect(this.status).toHaveAttribute("data-status", "idle", { timeout });
    await expect(this.stop).toHaveCount(0);
  }

  /**
   * Starts recording, in the page, every change of tool states, parts, text parts and the
   * retry notices (a MutationObserver sees each committed render). Reset by a reload.
   */
  async record(): Promise<void> {
    await this.page.evaluate(() => {
      const recording: Recording = { tools: {}, firstSeen: {}, statuses: [], retryNotices: 0, retryCards: [], texts: {} };
      window.__chatRecording = recording;
      const take = () => {
        const status = document.querySelector<HTMLElement>('[data-testid="session-status"]')?.dataset.status;
        if (status && recording.statuses[recording.statuses.length - 1] !== status) recording.statuses.push(status);
        for (const el of document.querySelectorAll<HTMLElement>("[data-part-id]")) {
          const id = el.dataset.partId ?? "";
          const type = el.dataset.partType ?? "";
          const role = el.closest<HTMLElement>('[data-testid="message"]')?.dataset.role;
          recording.firstSeen[id] ??= { type, role, status };
          if (type === "tool") {
            const log = (recording.tools[id] ??= []);
            const state = el.dataset.toolStatus ?? "";
            if (log[log.length - 1] !== state) log.push(state);
          }
          if (type === "text") {
            const log = (recording.texts[id] ??= []);
            const text = el.textContent ?? "";
            if (log[log.length - 1] !== text) log.push(text);
          }
        }
        // Every countdown to a retry on the page: the innermost elements saying "retrying in N s".
        const countdown = /retrying in \d+ ?s/i;
        const countdowns = [...document.querySelectorAll("body *")].filter(
          (el) => countdown.test(el.textContent ?? "") && ![...el.children].some((child) => countdown.test(child.textContent ?? "")),
        ).length;
        recording.retryNotices = Math.max(recording.retryNotices, countdowns);
        const card = document.querySelector('[data-testid="retry-card"] [data-testid="retry-next"]')?.textContent;
        if (card && recording.retryCards[recording.retryCards.length - 1] !== card) recording.retryCards.push(card);
      };
      new MutationObserver(take).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      take();
    });
  }

  async recording(): Promise<Recording> {
    const recording = await this.page.evaluate(() => window.__chatRecording);
    if (!recording) throw new Error("record() was not called on this page");
    return recording;
  }
}

/** A new session of the seeded team, opened in the page with its chat idle. */
export async function openChat(page: Page, seed: Seeder, title: string) {
  const session = await seed.session({ title: `${title} ${Date.now().toString(36)}` });
  await new SessionPage(page).goto(session.id);
  const chat = new Chat(page);
  await expect(chat.status).toHaveAttribute("data-status", "idle");
  return { session, chat };
}

/**
 * openChat, with a folder of the test's own (named `<prefix>-…`) in the session's workspace
 * (the project's folder is not touched), and `file(name)`: the path of a file in it.
 */
export async function openChatInFolder(page: Page, seed: Seeder, title: string, prefix: string) {
  const { session, chat } = await openChat(page, seed, title);
  const folder = `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const directory = await seed.directory(session.id);
  return { session, chat, folder, file: (name: string) => path.join(directory, folder, name) };
}
