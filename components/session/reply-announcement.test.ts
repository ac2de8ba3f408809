import { describe, expect, it } from "vitest";
import type { MessageError, UserMessage, WithParts } from "@/components/chat/types";
import { assistantInfo } from "@/test/messages";
import { replyAnnouncement } from "./reply-announcement";

const user = (id: string): WithParts => {
  const info: UserMessage = { id, sessionId: "ses_1", role: "user", time: { created: 1 }, agent: "build", model: { providerId: "parley", modelId: "offline" } };
  return { info, parts: [] };
};
const assistant = (id: string, error?: MessageError): WithParts => {
  const info = assistantInfo({ id, sessionId: "ses_1", parentId: "msg_u", modelId: "offline-1", path: { cwd: "/p", root: "/p" }, error, time: { created: 1, completed: 2 } });
  return { info, parts: [] };
};

describe("replyAnnouncement", () => {
  it("says the reply finished when the last assistant message has no error", () => {
    expect(replyAnnouncement([user("m1"), assistant("m2")])).toBe("The agent finished its reply.");
  });

  it("says it was stopped when the last reply was aborted", () => {
    expect(replyAnnouncement([user("m1"), assistant("m2", { name: "AbortedError", message: "aborted" })])).toBe("The agent's reply was stopped.");
  });

  it("says why it failed otherwise, from the last assistant message only", () => {
    const failed = assistant("m4", { name: "APIError", message: "Rate limited", isRetryable: true, statusCode: 429 });
    expect(replyAnnouncement([user("m1"), assistant("m2", { name: "AbortedError", message: "x" }), user("m3"), failed])).toBe("The agent's reply failed: Rate limited");
    expect(replyAnnouncement([user("m1"), assistant("m2", { name: "OutputLengthError" })])).toBe("The agent's reply failed: OutputLengthError");
  });

  it("a later success outweighs an earlier failure", () => {
    expect(replyAnnouncement([assistant("m2", { name: "UnknownError", message: "boom" }), user("m3"), assistant("m4")])).toBe("The agent finished its reply.");
  });
});
