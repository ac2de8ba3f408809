import { describe, expect, it } from "vitest";
import { filesOfDiff, messageMarkdown, shownMessages } from "./revert";
import { assistantMessage, userMessage } from "../../test/fixtures";
import type { Part, WithParts } from "./types";

const text = (messageId: string, id: string, value: string, extra: Partial<Extract<Part, { type: "text" }>> = {}): Part => ({
  id,
  sessionId: "ses_1",
  messageId,
  type: "text",
  text: value,
  ...extra,
});

function message(id: string, role: "user" | "assistant", parts: Part[]): WithParts {
  return { info: role === "user" ? userMessage("ses_1", { id }) : assistantMessage("ses_1", "msg_1", { id }), parts };
}

const conversation = [
  message("msg_1", "user", [text("msg_1", "prt_1", "first")]),
  message("msg_2", "assistant", [text("msg_2", "prt_2", "one"), text("msg_2", "prt_3", "two")]),
  message("msg_3", "user", [text("msg_3", "prt_4", "second")]),
  message("msg_4", "assistant", [text("msg_4", "prt_5", "three")]),
];

describe("shownMessages", () => {
  it("shows everything when nothing is reverted", () => {
    expect(shownMessages(conversation, undefined)).toEqual({ messages: conversation, hidden: 0 });
  });

  it("hides the revert point's message and every later one", () => {
    const shown = shownMessages(conversation, { messageId: "msg_3" });
    expect(shown.messages.map((m) => m.info.id)).toEqual(["msg_1", "msg_2"]);
    expect(shown.hidden).toBe(2);
  });

  it("hides a part, the parts after it and every later message", () => {
    const shown = shownMessages(conversation, { messageId: "msg_2", partId: "prt_3" });
    expect(shown.messages.map((m) => [m.info.id, m.parts.map((p) => p.id)])).toEqual([
      ["msg_1", ["prt_1"]],
      ["msg_2", ["prt_2"]],
    ]);
    expect(shown.hidden).toBe(2);
  });
});

describe("filesOfDiff and messageMarkdown", () => {
  it("lists the files of a unified diff once each", () => {
    const diff = "diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/b.txt b/b.txt\ndeleted file mode 100644\n";
    expect(filesOfDiff(diff)).toEqual(["src/a.ts", "b.txt"]);
    expect(filesOfDiff("")).toEqual([]);
  });

  it("copies the text a message shows, without synthetic or ignored text", () => {
    const m = message("msg_9", "assistant", [
      text("msg_9", "prt_a", "Here is code:\n```ts\nconst a = 1;\n```  "),
      text("msg_9", "prt_b", "hidden", { synthetic: true }),
      text("msg_9", "prt_c", "Done."),
    ]);
    expect(messageMarkdown(m)).toBe("Here is code:\n```ts\nconst a = 1;\n```\n\nDone.");
  });
});
