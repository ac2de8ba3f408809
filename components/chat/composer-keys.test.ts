import { describe, expect, it, vi } from "vitest";
import { agentCycleStep, chooseAgent, cycleAgent } from "./agent-choice";
import { type HandledKeyEvent, type ListKeyInput, handleListKey, listKey } from "./list-keys";
import { type CommandOption, activeSlash, commandCall, completeCommand, composerMode, filterCommands, shellCommand } from "./slash";

const key = (name: string, extra: Partial<ListKeyInput> = {}): ListKeyInput => ({ key: name, shiftKey: false, altKey: false, ctrlKey: false, metaKey: false, composing: false, ...extra });

function event(name: string, extra: Partial<Omit<HandledKeyEvent, "nativeEvent">> = {}) {
  const preventDefault = vi.fn();
  const stopPropagation = vi.fn();
  const e: HandledKeyEvent = { key: name, shiftKey: false, altKey: false, ctrlKey: false, metaKey: false, nativeEvent: { isComposing: false }, preventDefault, stopPropagation, ...extra };
  return { e, preventDefault, stopPropagation };
}

const COMMANDS: CommandOption[] = [
  { name: "compact", description: "Summarize the session to free its context", hints: [], source: "built-in" },
  { name: "hello", description: "Say hello to someone", hints: ["$ARGUMENTS"], source: "project" },
  { name: "init", description: "Create or update AGENTS.md for this project", hints: ["$ARGUMENTS"], source: "built-in" },
  { name: "review", description: "Review the session's changes", hints: ["$ARGUMENTS"], source: "built-in" },
  { name: "git/show", description: "Show a commit", hints: ["$1"], source: "project" },
];

describe("the completion lists' keys (the / menu and the @ list share them)", () => {
  it("↓ and ↑ move the highlight, wrapping at both ends", () => {
    expect(listKey(key("ArrowDown"), 3, 0)).toEqual({ type: "move", index: 1 });
    expect(listKey(key("ArrowDown"), 3, 2)).toEqual({ type: "move", index: 0 });
    expect(listKey(key("ArrowUp"), 3, 0)).toEqual({ type: "move", index: 2 });
  });
  it("Enter and Tab choose the highlighted option, saying which key chose it; Shift+Tab and modified keys are not the list's", () => {
    expect(listKey(key("Enter"), 3, 1)).toEqual({ type: "choose", index: 1, key: "Enter" });
    expect(listKey(key("Tab"), 3, 2)).toEqual({ type: "choose", index: 2, key: "Tab" });
    expect(listKey(key("Tab", { shiftKey: true }), 3, 0)).toBeUndefined();
    expect(listKey(key("Enter", { ctrlKey: true }), 3, 0)).toBeUndefined();
    expect(listKey(key("ArrowDown", { altKey: true }), 3, 0)).toBeUndefined();
  });
  it("Escape closes even an empty list; with no option nothing else is the list's (Enter then sends)", () => {
    expect(listKey(key("Escape"), 0, 0)).toEqual({ type: "close" });
    expect(listKey(key("Enter"), 0, 0)).toBeUndefined();
    expect(listKey(key("ArrowDown"), 0, 0)).toBeUndefined();
  });
  it("a key an input method is composing with is left to it", () => {
    expect(listKey(key("Enter", { composing: true }), 3, 0)).toBeUndefined();
    expect(listKey(key("Escape", { composing: true }), 3, 0)).toBeUndefined();
  });
  it("Escape closes the list and goes no further (it never stops the agent); other keys are prevented and applied", () => {
    const on = { move: vi.fn(), choose: vi.fn(), close: vi.fn() };
    const escape = event("Escape");
    expect(handleListKey(escape.e, { count: 2, active: 0 }, on)).toBe(true);
    expect(on.close).toHaveBeenCalledOnce();
    expect(escape.preventDefault).toHaveBeenCalled();
    expect(escape.stopPropagation).toHaveBeenCalled();
    const down = event("ArrowDown");
    expect(handleListKey(down.e, { count: 2, active: 0 }, on)).toBe(true);
    expect(on.move).toHaveBeenCalledWith(1);
    expect(down.stopPropagation).not.toHaveBeenCalled();
    expect(handleListKey(event("Tab").e, { count: 2, active: 1 }, on)).toBe(true);
    expect(on.choose).toHaveBeenCalledWith(1, "Tab");
    const letter = event("a");
    expect(handleListKey(letter.e, { count: 2, active: 1 }, on)).toBe(false);
    expect(letter.preventDefault).not.toHaveBeenCalled();
  });
});

describe("the / menu", () => {
  it("is open while the caret is in a /name at the very start of the message", () => {
    expect(activeSlash("/", 1)).toEqual({ query: "" });
    expect(activeSlash("/he", 3)).toEqual({ query: "he" });
    expect(activeSlash("/hello Ada", 6)).toEqual({ query: "hello" });
    expect(activeSlash("/hello Ada", 7)).toBeUndefined();
    expect(activeSlash(" /hello", 7)).toBeUndefined();
    expect(activeSlash("say /hello", 10)).toBeUndefined();
    expect(activeSlash("/he", 0)).toBeUndefined();
  });
  it("lists names starting with the query first, then names containing it, then (from 3 characters) descriptions containing it", () => {
    expect(filterCommands(COMMANDS, "").map((c) => c.name)).toEqual(["compact", "hello", "init", "review", "git/show"]);
    expect(filterCommands(COMMANDS, "he").map((c) => c.name)).toEqual(["hello"]);
    expect(filterCommands(COMMANDS, "SHOW").map((c) => c.name)).toEqual(["git/show"]);
    expect(filterCommands(COMMANDS, "i").map((c) => c.name)).toEqual(["init", "review", "git/show"]);
    expect(filterCommands(COMMANDS, "co").map((c) => c.name)).toEqual(["compact"]);
    expect(filterCommands(COMMANDS, "com").map((c) => c.name)).toEqual(["compact", "git/show"]);
    expect(filterCommands(COMMANDS, "agents").map((c) => c.name)).toEqual(["init"]);
    expect(filterCommands(COMMANDS, "zzz")).toEqual([]);
  });
  it("completing a name keeps what was typed after it", () => {
    expect(completeCommand("/he", "hello")).toBe("/hello ");
    expect(completeCommand("/he Ada", "hello")).toBe("/hello Ada");
  });
  it("runs /name arguments only for a command the session has; any other slash is a prompt", () => {
    const names = new Set(["hello", "git/show", "undo"]);
    expect(commandCall("/hello Ada and Grace", names)).toEqual({ name: "hello", arguments: "Ada and Grace" });
    expect(commandCall("/git/show HEAD~1\nplease", names)).toEqual({ name: "git/show", arguments: "HEAD~1\nplease" });
    expect(commandCall("/undo", names)).toEqual({ name: "undo", arguments: "" });
    expect(commandCall("/etc/hosts: what is this?", names)).toBeUndefined();
    expect(commandCall("hello /hello", names)).toBeUndefined();
  });
});

describe("!command", () => {
  it("is the text after the ! (a lone ! is nothing to run)", () => {
    expect(shellCommand("!ls -la")).toBe("ls -la");
    expect(shellCommand("  ! git status ")).toBe("git status");
    expect(shellCommand("!")).toBeUndefined();
    expect(shellCommand("ls !")).toBeUndefined();
  });
  it("the composer's mode says what the text will do", () => {
    const names = new Set(["hello"]);
    expect(composerMode("!ls", names)).toBe("shell");
    expect(composerMode("/hello Ada", names)).toBe("command");
    expect(composerMode("/nope", names)).toBe("prompt");
    expect(composerMode("hello", names)).toBe("prompt");
  });
});

describe("the agent picker", () => {
  const offered = ["build", "plan", "reviewer"];
  it("preselects the picked agent, else the last message's, else the session's, else the first — each only when still offered", () => {
    expect(chooseAgent(offered, { picked: "plan", lastUsed: "reviewer", session: "build" })).toBe("plan");
    expect(chooseAgent(offered, { picked: "gone", lastUsed: "reviewer" })).toBe("reviewer");
    expect(chooseAgent(offered, { lastUsed: "explore", session: "plan" })).toBe("plan");
    expect(chooseAgent(offered, {})).toBe("build");
    expect(chooseAgent([], { picked: "plan" })).toBeUndefined();
  });
  it("cycles forwards and backwards, wrapping", () => {
    expect(cycleAgent(offered, "build", 1)).toBe("plan");
    expect(cycleAgent(offered, "reviewer", 1)).toBe("build");
    expect(cycleAgent(offered, "build", -1)).toBe("reviewer");
    expect(cycleAgent(offered, "gone", 1)).toBe("build");
    expect(cycleAgent([], "build", 1)).toBeUndefined();
  });
  it("Tab / Shift+Tab cycle only in the empty box, and not once Escape has released it (so the keyboard can leave)", () => {
    const free = { empty: true, released: false };
    expect(agentCycleStep(key("Tab"), free)).toBe(1);
    expect(agentCycleStep(key("Tab", { shiftKey: true }), free)).toBe(-1);
    expect(agentCycleStep(key("Tab"), { empty: false, released: false })).toBeUndefined();
    expect(agentCycleStep(key("Tab"), { empty: true, released: true })).toBeUndefined();
    expect(agentCycleStep(key("Tab", { ctrlKey: true }), free)).toBeUndefined();
    expect(agentCycleStep(key("Enter"), free)).toBeUndefined();
  });
});
