import { describe, expect, it } from "vitest";
import type { AssistantMessage, Part } from "./types";
import { assistantInfo } from "@/test/messages";
import { instructionEntries, instructionSummary, repeatedInstructionLines } from "./instructions";

const info = (instructions: AssistantMessage["instructions"]): AssistantMessage =>
  assistantInfo({ id: "msg_2", sessionId: "ses_1", parentId: "msg_1", providerId: "p", modelId: "m", path: { cwd: ".", root: "." }, ...(instructions ? { instructions } : {}) });

const read = (id: string, loaded?: unknown): Part => ({
  id,
  sessionId: "ses_1",
  messageId: "msg_2",
  type: "tool",
  callId: id,
  tool: "read",
  state: { status: "completed", input: {}, output: "", title: "", metadata: loaded === undefined ? {} : { loaded }, time: { start: 0, end: 1 } },
});

describe("the instructions line", () => {
  it("lists the prompt's sources in order, then the rule files reads appended (once), then those left out", () => {
    const entries = instructionEntries(
      info([
        { kind: "team", label: "team", bytes: 4, sha256: "a" },
        { kind: "file", label: "AGENTS.md", bytes: 9, sha256: "b", cut: true },
        { kind: "file", label: "linked.md", skipped: "it leads outside the project (a symbolic link)" },
        { kind: "file", label: "docs/rules.md", bytes: 3, sha256: "c" },
      ]),
      [read("prt_1", ["pkg/AGENTS.md"]), read("prt_2", ["pkg/AGENTS.md", "AGENTS.md", 7]), read("prt_3")],
    );
    expect(entries.map((e) => [e.label, e.nested, e.cut, e.skipped ?? null])).toEqual([
      ["team", false, false, null],
      ["AGENTS.md", false, true, null],
      ["docs/rules.md", false, false, null],
      ["pkg/AGENTS.md", true, false, null],
      ["linked.md", false, false, "it leads outside the project (a symbolic link)"],
    ]);
    expect(instructionSummary(entries)).toBe("Instructions: team, AGENTS.md, docs/rules.md, pkg/AGENTS.md (1 left out)");
  });

  it("an answer without instructions has no entries", () => {
    expect(instructionEntries(info(undefined), [read("prt_1")])).toEqual([]);
    expect(instructionSummary([])).toBe("Instructions: none");
  });
});

describe("repeated lines", () => {
  const step = (id: string, parentId: string, sha: string, parts: Part[] = []) => ({ info: { ...info([{ kind: "file", label: "AGENTS.md", bytes: 1, sha256: sha }]), id, parentId }, parts });

  it("a later step of a turn with the same sources and no appended rule file repeats; a change, a nested rule or a new turn shows again", () => {
    const messages = [step("msg_2", "msg_1", "a"), step("msg_3", "msg_1", "a"), step("msg_4", "msg_1", "b"), step("msg_5", "msg_1", "b", [read("prt_1", ["pkg/AGENTS.md"])]), step("msg_7", "msg_6", "b")];
    expect([...repeatedInstructionLines(messages)]).toEqual(["msg_3"]);
  });

  it("a later step whose request first carried the tool servers' context warning shows its line again", () => {
    const warned = { ...step("msg_3", "msg_1", "a"), info: { ...step("msg_3", "msg_1", "a").info, toolWarning: "The tools of this team's tool servers take about 9000 tokens, 28% of the model's context: consider an allow-list of tools." } };
    expect([...repeatedInstructionLines([step("msg_2", "msg_1", "a"), warned])]).toEqual([]);
    expect([...repeatedInstructionLines([step("msg_2", "msg_1", "a"), step("msg_3", "msg_1", "a")])]).toEqual(["msg_3"]);
  });

  it("a tool server's instructions are an entry labelled \"tool server <name>\"", () => {
    const entries = instructionEntries(info([{ kind: "server", label: "tool server docs", bytes: 20, sha256: "d" }]), []);
    expect(entries).toEqual([{ label: "tool server docs", kind: "server", nested: false, cut: false }]);
    expect(instructionSummary(entries)).toBe("Instructions: tool server docs");
  });
});
