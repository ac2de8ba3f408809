import { describe, expect, it } from "vitest";
import type { Part } from "../session/message";
import { UNEXPECTED_ERROR, errorForViewer, forViewer, messageForViewer, partForViewer, relativeText, visibleFile } from "./share-view";

/** What a share link shows of an edit of a secret file: the path and outcome, never the content. */

const base = { id: "prt_1", sessionId: "ses_1", messageId: "msg_1", type: "tool" as const, callId: "call_1" };

function write(filePath: string, state: "running" | "completed", metadata: Record<string, unknown> = {}): Part {
  const input = { filePath, content: "API_KEY=sk-live-123\n" };
  return state === "running"
    ? { ...base, tool: "write", state: { status: "running", input, time: { start: 1 } } }
    : { ...base, tool: "write", state: { status: "completed", input, output: `Created ${filePath}.`, title: filePath, metadata, time: { start: 1, end: 2 } } };
}

describe("partForViewer", () => {
  it("hides what is written into a .env file while the edit waits for approval and once it is done", () => {
    for (const part of [write(".env", "running"), write("config/prod.env", "completed", { diffHidden: true })]) {
      const shown = JSON.stringify(partForViewer(part));
      expect(shown).not.toContain("sk-live-123");
      expect(shown).toContain("contentHidden");
    }
  });

  it("hides the content of any file whose tool result says its diff is hidden (a team's own rules)", () => {
    const part = write("secrets/keys.txt", "completed", { diffHidden: true, filePath: "secrets/keys.txt" });
    expect(JSON.stringify(partForViewer(part))).not.toContain("sk-live-123");
  });

  it("leaves every other part alone", () => {
    const part = write("src/app.ts", "completed", { diff: "+API_KEY" });
    expect(partForViewer(part)).toBe(part);
  });
});

describe("forViewer and visibleFile", () => {
  it("shows where a session is reverted to, never the revert's diff, rules or directory", () => {
    const info = {
      id: "ses_1",
      teamId: "tea_1",
      projectId: "prj_1",
      directory: "/srv/projects/a",
      title: "t",
      slug: "s",
      version: "0.1.0",
      authorId: "usr_1",
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      time: { created: 1, updated: 1 },
      permission: [{ permission: "bash", pattern: "*", action: "deny" as const }],
      revert: { messageId: "msg_00000000000000000001", snapshot: "abc", diff: "+API_KEY=sk-live-123" },
    };
    const shown = forViewer(info);
    expect(shown.revert).toEqual({ messageId: "msg_00000000000000000001" });
    expect(JSON.stringify(shown)).not.toMatch(/sk-live-123|\/srv\/projects|"deny"/);
  });

  it("lets viewers see the changes of ordinary files, not of .env files", () => {
    expect(visibleFile("src/a.ts")).toBe(true);
    expect(visibleFile(".env")).toBe(false);
    expect(visibleFile("config/.env.local")).toBe(false);
  });
});

describe("relativeText and errors, as viewers get them", () => {
  const scope = { teamId: "tea_1", directory: "/srv/data/projects/app", dataDir: "/srv/data" };

  it("makes project paths relative and names saved outputs, the project lying inside the data directory", () => {
    expect(relativeText("/srv/data/projects/app/\n  src/", scope, "ses_1")).toBe("./\n  src/");
    expect(relativeText("open '/srv/data/projects/app/src/a.ts'", scope, "ses_1")).toBe("open 'src/a.ts'");
    expect(relativeText("cwd /srv/data/projects/app", scope, "ses_1")).toBe("cwd .");
    expect(relativeText("saved to: /srv/data/tool-output/tea_1/ses_1/call_1.txt", scope, "ses_1")).toBe("saved to: tool-output/call_1.txt");
    expect(relativeText("/srv/data/db/pg", scope, "ses_1")).toBe("<data directory>/db/pg");
    // A sibling whose name merely starts like the project is not the project.
    expect(relativeText("/srv/data/projects/app2/x", scope, "ses_1")).toBe("<data directory>/projects/app2/x");
  });

  it("rewrites every string of a tool part, and leaves text parts alone", () => {
    const tool = {
      id: "prt_1", sessionId: "ses_1", messageId: "msg_1", type: "tool" as const, callId: "c", tool: "bash",
      state: { status: "error" as const, input: { workdir: "/srv/data/projects/app/src" }, error: "ENOENT /srv/data/projects/app/x", metadata: { nested: ["/srv/data/projects/app/y"] }, time: { start: 1, end: 2 } },
    };
    expect(JSON.stringify(partForViewer(tool, scope))).not.toContain("/srv/");
    const text: Part = { id: "prt_2", sessionId: "ses_1", messageId: "msg_1", type: "text", text: "in /srv/data/projects/app", time: { start: 1, end: 2 } };
    expect(partForViewer(text, scope)).toBe(text);
  });

  it("shows an unexpected error as a generic sentence, provider errors without headers or bodies, and the path relative", () => {
    expect(errorForViewer({ name: "UnknownError", message: "Invalid `prisma.part.create()` invocation" })).toEqual({ name: "UnknownError", message: UNEXPECTED_ERROR });
    expect(errorForViewer({ name: "APIError", message: "rate limited", statusCode: 429, isRetryable: true, responseHeaders: { "x-org": "acme" }, responseBody: "{}" })).toEqual({ name: "APIError", message: "rate limited", statusCode: 429, isRetryable: true });
    const info = messageForViewer({
      id: "msg_1", sessionId: "ses_1", role: "assistant", parentId: "msg_0", providerId: "p", modelId: "m", agent: "build",
      path: { cwd: "/srv/app/sub", root: "/srv/app" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }, time: { created: 1 },
    });
    expect(info.role === "assistant" && info.path).toEqual({ cwd: "sub", root: "." });
  });
});
