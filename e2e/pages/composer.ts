import type { Locator } from "@playwright/test";
import { PageObject } from "./page-object";

/** A file as a test hands it to the page. */
export interface TestFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/** What the composer adds to the message box: attachments, @ mentions, starter prompts. */
export class ComposerExtras extends PageObject {
  readonly form = this.page.getByRole("form", { name: "Send a message" });
  readonly input = this.page.getByRole("textbox", { name: "Message" });
  readonly attachButton = this.page.getByRole("button", { name: "Attach files" });
  readonly chips = this.page.getByTestId("attachment-chip");
  readonly attachError = this.page.getByTestId("attach-error");
  readonly mentionMenu = this.page.getByTestId("mention-menu");
  readonly mentionOptions = this.page.getByRole("listbox", { name: "Project files" }).getByRole("option");
  readonly starterPrompts = this.page.getByTestId("starter-prompt");

  chip(name: string): Locator {
    return this.chips.filter({ hasText: name });
  }

  /** Picks files through the system file picker the Attach button opens. */
  async attach(...files: TestFile[]): Promise<void> {
    const chooser = this.page.waitForEvent("filechooser");
    await this.attachButton.click();
    await (await chooser).setFiles(files);
  }

  /** Pastes files into the message box, as a copied screenshot is pasted. */
  async paste(file: TestFile): Promise<void> {
    await this.input.evaluate(
      (box, f) => {
        const data = new DataTransfer();
        data.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.mimeType }));
        box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
      },
      { name: file.name, mimeType: file.mimeType, base64: file.buffer.toString("base64") },
    );
  }

  /** Drags files from outside the page over the composer and drops them there. */
  async drop(file: TestFile): Promise<void> {
    const data = await this.page.evaluateHandle((f) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.mimeType }));
      return transfer;
    }, { name: file.name, mimeType: file.mimeType, base64: file.buffer.toString("base64") });
    await this.form.dispatchEvent("dragenter", { dataTransfer: data });
    await this.form.dispatchEvent("dragover", { dataTransfer: data });
    await this.form.dispatchEvent("drop", { dataTransfer: data });
  }
}
