import { describe, expect, it } from "vitest";
import type { MessageError, Part, WithParts } from "@/components/chat/types";
import { assistantInfo } from "@/test/messages";
import { pageTitle, signalIcon, signalTitle, turnOutcome, waitingForApproval } from "./attention";

const assistant = (parts: Part[] = [], error?: MessageError): WithParts => {
  const info = assistantInfo({ id: "msg_a", sessionId: "ses_1", parentId: "msg_u", modelId: "offline-1", path: { cwd: "/p", root: "/p" }, error, time: { created: 1 } });
  return { info, parts };
};
const tool = (approval?: { permission: string }): Part => ({
  id: "prt_1",
  sessionId: "ses_1",
  messageId: "msg_a",
  type: "tool",
  callId: "call_1",
  tool: "bash",
  state: { status: "running", input: {}, time: { start: 1 }, ...(approval ? { approval } : {}) },
});

describe("attention signals", () => {
  it("a running tool call with a permission question waits for approval; one without does not", () => {
    expect(waitingForApproval([assistant([tool({ permission: "bash" })])])).toBe(true);
    expect(waitingForApproval([assistant([tool()])])).toBe(false);
    expect(waitingForApproval([])).toBe(false);
  });

  it("a turn failed when its reply has an error other than being stopped", () => {
    expect(turnOutcome([assistant()])).toBe("finished");
    expect(turnOutcome([assistant([], { name: "AbortedError", message: "stopped" })])).toBe("finished");
    expect(turnOutcome([assistant([], { name: "UnknownError", message: "boom" })])).toBe("failed");
  });

  it("puts the signal in front of the title, and nothing without one", () => {
    expect(signalTitle("approval", "Fix · Parley")).toBe("(!) Waiting for approval · Fix · Parley");
    expect(signalTitle("finished", "Fix · Parley")).toBe("(✓) Finished · Fix · Parley");
    expect(signalTitle("failed", "Fix · Parley")).toBe("(✕) Failed · Fix · Parley");
    expect(signalTitle(undefined, "Fix · Parley")).toBe("Fix · Parley");
    expect(pageTitle("Fix", "approval")).toBe("(!) Waiting for approval · Fix · Parley");
    expect(decodeURIComponent(signalIcon("failed"))).toContain('fill="#dc2626"');
  });
});
