import { describe, expect, it } from "vitest";
import { assistantInfo } from "../../test/messages";
import { DEFAULTS } from "../permission/evaluate";
import { layers } from "../permission/layers";
import type { Ruleset } from "../permission/schema";
import type { Part } from "../session/message";
import { rewrite, swapsOf } from "./paths";
import { UNEXPECTED_ERROR, type ViewerScope, errorForViewer, forViewer, messageForViewer, partForViewer, relativeText, visibleFile } from "./redaction";

/** A viewer's scope under the built-in defaults and a team policy. */
function scopeWith(team: Ruleset = [], directory = "/srv/data/projects/app"): ViewerScope {
  return { teamId: "tea_1", directory, dataDir: "/srv/data", rules: layers({ defaults: DEFAULTS, config: [], team, project: [], agent: [] }, { members: [], admins: [] }) };
}
const defaults = scopeWith();

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
      const shown = JSON.stringify(partForViewer(part, defaults));
      expect(shown).not.toContain("sk-live-123");
      expect(shown).toContain("contentHidden");
    }
  });

  it("hides the content of any file whose tool result says its diff is hidden (a team's own rules)", () => {
    const part = write("secrets/keys.txt", "completed", { diffHidden: true, filePath: "secrets/keys.txt" });
    expect(JSON.stringify(partForViewer(part, defaults))).not.toContain("sk-live-123");
  });

  it("hides the content of a file the team's policy does not let be read, by its relative or absolute path", () => {
    const policy = scopeWith([{ permission: "read", pattern: "hr/*", action: "deny" }]);
    for (const filePath of ["hr/salaries.txt", "/srv/data/projects/app/hr/salaries.txt"]) {
      expect(JSON.stringify(partForViewer(write(filePath, "running"), policy))).not.toContain("sk-live-123");
      expect(JSON.stringify(partForViewer(write(filePath, "running"), defaults))).toContain("sk-live-123");
    }
  });

  it("leaves what any other edit wrote", () => {
    const part = write("src/app.ts", "completed", { diff: "+API_KEY" });
    expect(partForViewer(part, defaults)).toEqual(part);
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
    const shown = forViewer(info, defaults);
    expect(shown.revert).toEqual({ messageId: "msg_00000000000000000001" });
    expect(JSON.stringify(shown)).not.toMatch(/sk-live-123|\/srv\/projects|"deny"|tea_1|prj_1|usr_1/);
  });

  it("lets viewers see the changes of ordinary files, not of .env files nor of files the team's policy does not let be read", () => {
    expect(visibleFile("src/a.ts", defaults)).toBe(true);
    expect(visibleFile(".env", defaults)).toBe(false);
    expect(visibleFile("config/.env.local", defaults)).toBe(false);
    const policy = scopeWith([{ permission: "read", pattern: "hr/*", action: "deny" }, { permission: "read", pattern: "legal/*", action: "ask" }]);
    expect(visibleFile("hr/salaries.txt", policy)).toBe(false);
    expect(visibleFile("legal/contract.md", policy)).toBe(false);
    expect(visibleFile("/srv/data/projects/app/hr/salaries.txt", policy)).toBe(false);
    expect(visibleFile("src/a.ts", policy)).toBe(true);
  });
});

describe("relativeText and errors, as viewers get them", () => {
  const scope = defaults;

  it("makes project paths relative and names saved outputs, the project lying inside the data directory", () => {
    expect(relativeText("/srv/data/projects/app/\n  src/", scope, "ses_1")).toBe("./\n  src/");
    expect(relativeText("open '/srv/data/projects/app/src/a.ts'", scope, "ses_1")).toBe("open 'src/a.ts'");
    expect(relativeText("cwd /srv/data/projects/app", scope, "ses_1")).toBe("cwd .");
    expect(relativeText("saved to: /srv/data/tool-output/tea_1/ses_1/call_1.txt", scope, "ses_1")).toBe("saved to: tool-output/call_1.txt");
    expect(relativeText("/srv/data/db/pg", scope, "ses_1")).toBe("<data directory>/db/pg");
    // A sibling whose name merely starts like the project is not the project.
    expect(relativeText("/srv/data/projects/app2/x", scope, "ses_1")).toBe("<data directory>/projects/app2/x");
  });

  it("rewrites every string of a tool part, and of text parts", () => {
    const tool = {
      id: "prt_1", sessionId: "ses_1", messageId: "msg_1", type: "tool" as const, callId: "c", tool: "bash",
      state: { status: "error" as const, input: { workdir: "/srv/data/projects/app/src" }, error: "ENOENT /srv/data/projects/app/x", metadata: { nested: ["/srv/data/projects/app/y"] }, time: { start: 1, end: 2 } },
    };
    expect(JSON.stringify(partForViewer(tool, scope))).not.toContain("/srv/");
    const text: Part = { id: "prt_2", sessionId: "ses_1", messageId: "msg_1", type: "text", text: "in /srv/data/projects/app", time: { start: 1, end: 2 } };
    expect(partForViewer(text, scope)).toEqual({ ...text, text: "in ." });
  });

  it("shows an unexpected error as a generic sentence, provider errors without headers or bodies, and the path relative", () => {
    expect(errorForViewer({ name: "UnknownError", message: "Invalid `prisma.part.create()` invocation" }, scope)).toEqual({ name: "UnknownError", message: UNEXPECTED_ERROR });
    expect(errorForViewer({ name: "APIError", message: "rate limited", statusCode: 429, isRetryable: true, responseHeaders: { "x-org": "acme" }, responseBody: "{}" })).toEqual({ name: "APIError", message: "rate limited", statusCode: 429, isRetryable: true });
    expect(errorForViewer({ name: "AuthError", providerId: "p", message: "no key in /srv/data/keys" }, scope)).toEqual({ name: "AuthError", providerId: "p", message: "no key in <data directory>/keys" });
    const info = messageForViewer({
      id: "msg_1", sessionId: "ses_1", role: "assistant", parentId: "msg_0", providerId: "p", modelId: "m", agent: "build",
      path: { cwd: "/srv/app/sub", root: "/srv/app" }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }, time: { created: 1 },
    }, scope);
    expect(info.role === "assistant" && info.path).toEqual({ cwd: "sub", root: "." });
  });
});

describe("streamed text, as viewers get it", () => {
  const swaps = swapsOf({ teamId: "tea_1", directory: "/srv/data/projects/app", dataDir: "/srv/data" }, "ses_1");

  it("never sends the start of a folder's name, and what it sent only grows, however the text is cut", () => {
    const full = "cd /srv/data/projects/app/src && ls /srv/data/projects/app2 /srv/data/projects/app.bak /srv/data/projects/app; cat /srv/data/x. Done in /srv/data/projects/app.";
    const finished = rewrite(full, swaps, true).out;
    expect(finished).toBe("cd src && ls <data directory>/projects/app2 <data directory>/projects/app.bak .; cat <data directory>/x. Done in ..");
    for (let cut = 0; cut <= full.length; cut++) {
      const first = rewrite(full.slice(0, cut), swaps, false);
      expect(first.out).not.toMatch(/\/srv/);
      expect(finished.startsWith(first.out)).toBe(true);
      // Going on from there gives what rewriting the whole text at once gives.
      expect(rewrite(full, swaps, true, first).out).toBe(finished);
    }
  });
});

describe("instructions a turn used, for viewers", () => {
  const answer = assistantInfo({
    id: "msg_2",
    sessionId: "ses_1",
    parentId: "msg_1",
    providerId: "p",
    modelId: "m",
    path: { cwd: "/srv/data/projects/app", root: "/srv/data/projects/app" },
    instructions: [
      { kind: "team" as const, label: "team", bytes: 10, sha256: "a".repeat(64) },
      { kind: "file" as const, label: "AGENTS.md", bytes: 20, sha256: "b".repeat(64), cut: true },
      { kind: "url" as const, label: "https://rules.example/team.md?token=s3cret", bytes: 5, sha256: "c".repeat(64) },
      { kind: "file" as const, label: "linked.md", skipped: "it leads outside the project (a symbolic link)" },
    ],
  });

  it("are names only: no size, no digest, an address without its query", () => {
    const shown = messageForViewer(answer, defaults);
    expect(shown.role === "assistant" ? shown.instructions : undefined).toEqual([
      { kind: "team", label: "team" },
      { kind: "file", label: "AGENTS.md", cut: true },
      { kind: "url", label: "https://rules.example/team.md" },
      { kind: "file", label: "linked.md", skipped: "it leads outside the project (a symbolic link)" },
    ]);
    expect(JSON.stringify(shown)).not.toContain("s3cret");
  });

  it("a read result keeps the rule files it appended only when the read rules show them all", () => {
    const output = "<file>\n00001| code\n</file>\n\n<system-reminder>\nInstructions from: hr/AGENTS.md\nSalary bands are secret.\n</system-reminder>";
    const read: Part = { ...base, tool: "read", state: { status: "completed", input: { filePath: "hr/a.ts" }, output, title: "hr/a.ts", metadata: { loaded: ["hr/AGENTS.md"] }, time: { start: 1, end: 2 } } };
    const open = partForViewer(read, defaults);
    expect(open.type === "tool" && open.state.status === "completed" ? open.state.output : "").toBe(output);
    const hidden = partForViewer(read, scopeWith([{ permission: "read", pattern: "hr/AGENTS.md", action: "deny" }]));
    const text = hidden.type === "tool" && hidden.state.status === "completed" ? hidden.state.output : "";
    expect(text).not.toContain("Salary");
    expect(text).toBe("<file>\n00001| code\n</file>\n\n<system-reminder>\nInstructions from: hr/AGENTS.md (not shared: the project keeps these files private)\n</system-reminder>");
  });
});
