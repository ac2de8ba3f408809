import { describe, expect, it } from "vitest";
import { type FocusTarget, type KeyInput, SHORTCUTS, abortShortcut, globalShortcut, isTypingTarget, stopsReply } from "./keyboard";

const key = (k: string, extra: Partial<KeyInput> = {}): KeyInput => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, defaultPrevented: false, ...extra });
const element = (tagName: string, extra: Partial<FocusTarget> = {}, overlay = false): FocusTarget => ({
  tagName,
  closest: () => (overlay ? {} : null),
  ...extra,
});

describe("isTypingTarget", () => {
  it("counts text fields, selects and editable content, not buttons or checkboxes", () => {
    expect(isTypingTarget(element("TEXTAREA"))).toBe(true);
    expect(isTypingTarget(element("input"))).toBe(true);
    expect(isTypingTarget(element("INPUT", { type: "search" }))).toBe(true);
    expect(isTypingTarget(element("SELECT"))).toBe(true);
    expect(isTypingTarget(element("DIV", { isContentEditable: true }))).toBe(true);
    expect(isTypingTarget(element("INPUT", { type: "checkbox" }))).toBe(false);
    expect(isTypingTarget(element("INPUT", { type: "radio" }))).toBe(false);
    expect(isTypingTarget(element("BUTTON"))).toBe(false);
    expect(isTypingTarget(element("BODY"))).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
});

describe("globalShortcut", () => {
  it("/ focuses the message box and ? opens the help, from the page", () => {
    expect(globalShortcut(key("/"), element("BODY"))).toBe("focus-message-box");
    expect(globalShortcut(key("?"), element("BUTTON"))).toBe("show-help");
    expect(globalShortcut(key("a"), element("BODY"))).toBeUndefined();
  });

  it("never fires while typing, with a modifier, in a dialog or after another handler took the key", () => {
    expect(globalShortcut(key("/"), element("TEXTAREA"))).toBeUndefined();
    expect(globalShortcut(key("?"), element("INPUT"))).toBeUndefined();
    expect(globalShortcut(key("/", { ctrlKey: true }), element("BODY"))).toBeUndefined();
    expect(globalShortcut(key("/", { metaKey: true }), element("BODY"))).toBeUndefined();
    expect(globalShortcut(key("?", { altKey: true }), element("BODY"))).toBeUndefined();
    expect(globalShortcut(key("/", { defaultPrevented: true }), element("BODY"))).toBeUndefined();
    expect(globalShortcut(key("?"), element("BUTTON", {}, true))).toBeUndefined();
  });
});

describe("stopsReply", () => {
  it("Escape stops a running reply, from the page or the message box", () => {
    expect(stopsReply(key("Escape"), element("BODY"), true)).toBe(true);
    expect(stopsReply(key("Escape"), element("TEXTAREA"), true)).toBe(true);
  });

  it("not when idle, not another key, not from a dialog or menu, not when taken by another handler", () => {
    expect(stopsReply(key("Escape"), element("BODY"), false)).toBe(false);
    expect(stopsReply(key("Enter"), element("BODY"), true)).toBe(false);
    expect(stopsReply(key("Escape"), element("BUTTON", {}, true), true)).toBe(false);
    expect(stopsReply(key("Escape", { defaultPrevented: true }), element("TEXTAREA"), true)).toBe(false);
    expect(stopsReply(key("Escape", { isComposing: true }), element("TEXTAREA"), true)).toBe(false);
    expect(stopsReply(key("Escape", { ctrlKey: true }), element("BODY"), true)).toBe(false);
  });
});

describe("issue 33: search, new session, the stop key, and Escape while a question waits", () => {
  it("Ctrl/⌘+K searches and Ctrl/⌘+Shift+O starts a session, from the page and from a text field, not from a dialog", () => {
    for (const target of [element("BODY"), element("TEXTAREA"), element("INPUT", { type: "search" })]) {
      expect(globalShortcut(key("k", { ctrlKey: true }), target)).toBe("search");
      expect(globalShortcut(key("k", { metaKey: true }), target)).toBe("search");
      expect(globalShortcut(key("O", { ctrlKey: true, shiftKey: true }), target)).toBe("new-session");
      expect(globalShortcut(key("O", { metaKey: true, shiftKey: true }), target)).toBe("new-session");
    }
    expect(globalShortcut(key("k"), element("BODY"))).toBeUndefined();
    expect(globalShortcut(key("k", { ctrlKey: true, shiftKey: true }), element("BODY"))).toBeUndefined();
    expect(globalShortcut(key("o", { ctrlKey: true }), element("BODY"))).toBeUndefined();
    expect(globalShortcut(key("k", { ctrlKey: true, altKey: true }), element("BODY"))).toBeUndefined();
    expect(globalShortcut(key("k", { ctrlKey: true }), element("BUTTON", {}, true))).toBeUndefined();
    expect(globalShortcut(key("k", { ctrlKey: true, defaultPrevented: true }), element("BODY"))).toBeUndefined();
  });

  it("Escape never stops the reply while a question waits; Ctrl/⌘+. stops it in any case while it runs", () => {
    expect(stopsReply(key("Escape"), element("TEXTAREA"), true, true)).toBe(false);
    expect(stopsReply(key("Escape"), element("TEXTAREA"), true, false)).toBe(true);
    expect(abortShortcut(key(".", { ctrlKey: true }), true)).toBe(true);
    expect(abortShortcut(key(".", { metaKey: true }), true)).toBe(true);
    expect(abortShortcut(key(".", { ctrlKey: true }), false)).toBe(false);
    expect(abortShortcut(key("."), true)).toBe(false);
  });

  it("the help lists every shortcut: the answers to a question, search, new session and the stop key", () => {
    const listed = SHORTCUTS.map((s) => s.keys.join("+"));
    for (const keys of ["Y", "A", "N", "Enter", "Esc", "Ctrl/⌘+K", "Ctrl/⌘+Shift+O", "Ctrl/⌘+.", "/", "?"]) expect(listed).toContain(keys);
  });
});
