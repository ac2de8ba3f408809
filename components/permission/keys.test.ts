import { describe, expect, it } from "vitest";
import { type FocusTarget, type KeyPress, answerForKey, isTextField, offersAlways, questionEscape } from "./keys";

const body: FocusTarget = { tagName: "BODY", isContentEditable: false };
const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({
  key,
  altKey: false,
  ctrlKey: false,
  metaKey: false,
  repeat: false,
  isComposing: false,
  defaultPrevented: false,
  target: body,
  ...extra,
});
const always = { always: true };

describe("answerForKey", () => {
  it("Y and Enter allow once, A always, N rejects, in either case", () => {
    expect(["y", "Y", "Enter", "a", "A", "n", "N"].map((key) => answerForKey(press(key), always))).toEqual(["once", "once", "once", "always", "always", "reject", "reject"]);
  });

  it("A does nothing when the question offers no always", () => {
    expect(answerForKey(press("a"), { always: false })).toBeUndefined();
  });

  it("other keys, keys with a modifier, repeats, composition and handled events answer nothing", () => {
    for (const p of [press("d"), press("Escape"), press(" "), press("y", { ctrlKey: true }), press("y", { metaKey: true }), press("n", { altKey: true }), press("y", { repeat: true }), press("y", { isComposing: true }), press("y", { defaultPrevented: true })]) {
      expect(answerForKey(p, always)).toBeUndefined();
    }
  });

  it("keys typed into a text field are text, not answers", () => {
    const fields: FocusTarget[] = [
      { tagName: "TEXTAREA", isContentEditable: false },
      { tagName: "INPUT", isContentEditable: false, type: "text" },
      { tagName: "INPUT", isContentEditable: false, type: "search" },
      { tagName: "SELECT", isContentEditable: false },
      { tagName: "DIV", isContentEditable: true },
      { tagName: "DIV", isContentEditable: false, role: "textbox" },
    ];
    for (const target of fields) {
      expect(isTextField(target)).toBe(true);
      expect(answerForKey(press("y", { target }), always)).toBeUndefined();
      expect(answerForKey(press("Enter", { target }), always)).toBeUndefined();
    }
    expect(isTextField({ tagName: "INPUT", isContentEditable: false, type: "checkbox" })).toBe(false);
  });

  it("Enter on a control is the control's own; letters still answer there", () => {
    const controls: FocusTarget[] = [
      { tagName: "BUTTON", isContentEditable: false },
      { tagName: "A", isContentEditable: false },
      { tagName: "SUMMARY", isContentEditable: false },
      { tagName: "INPUT", isContentEditable: false, type: "checkbox" },
      { tagName: "DIV", isContentEditable: false, role: "button" },
    ];
    for (const target of controls) {
      expect(answerForKey(press("Enter", { target }), always)).toBeUndefined();
      expect(answerForKey(press("y", { target }), always)).toBe("once");
    }
    expect(answerForKey(press("Enter", { target: { tagName: "DIV", isContentEditable: false } }), always)).toBe("once");
    expect(answerForKey(press("Enter", { target: null }), always)).toBe("once");
  });
});

describe("the message box while a question waits", () => {
  const box = (empty: boolean, listOpen = false): FocusTarget => ({ tagName: "TEXTAREA", isContentEditable: false, messageBox: { empty, listOpen } });

  it("empty, Y / Enter / A / N answer; Shift+Enter and other letters do not", () => {
    const target = box(true);
    expect(["y", "Enter", "a", "N"].map((key) => answerForKey(press(key, { target }), always))).toEqual(["once", "once", "always", "reject"]);
    expect(answerForKey(press("Enter", { target, shiftKey: true }), always)).toBeUndefined();
    expect(answerForKey(press("x", { target }), always)).toBeUndefined();
    expect(answerForKey(press("y", { target, ctrlKey: true }), always)).toBeUndefined();
  });

  it("with text in it (or its completion list open), the keys are text", () => {
    for (const target of [box(false), box(true, true)]) {
      for (const key of ["y", "a", "n", "Enter"]) expect(answerForKey(press(key, { target }), always)).toBeUndefined();
    }
  });
});

describe("questionEscape", () => {
  it("from the message box, full or empty, or the page: go to the question", () => {
    for (const target of [{ tagName: "TEXTAREA", isContentEditable: false, messageBox: { empty: true, listOpen: false } }, { tagName: "TEXTAREA", isContentEditable: false, messageBox: { empty: false, listOpen: false } }, body, null]) {
      expect(questionEscape(press("Escape", { target }))).toBe("focus-question");
    }
  });

  it("from the question itself: reject it", () => {
    expect(questionEscape(press("Escape", { target: { tagName: "ARTICLE", isContentEditable: false, inQuestion: true } }))).toBe("reject");
    expect(questionEscape(press("Escape", { target: { tagName: "BUTTON", isContentEditable: false, inQuestion: true } }))).toBe("reject");
  });

  it("leaves Escape to a dialog, a list, the box's open completion, another text field; and ignores other keys and handled events", () => {
    expect(questionEscape(press("Escape", { target: { tagName: "BUTTON", isContentEditable: false, inOverlay: true } }))).toBeUndefined();
    expect(questionEscape(press("Escape", { target: { tagName: "TEXTAREA", isContentEditable: false, messageBox: { empty: false, listOpen: true } } }))).toBeUndefined();
    expect(questionEscape(press("Escape", { target: { tagName: "TEXTAREA", isContentEditable: false } }))).toBeUndefined();
    expect(questionEscape(press("Escape", { defaultPrevented: true }))).toBeUndefined();
    expect(questionEscape(press("Escape", { ctrlKey: true }))).toBeUndefined();
    expect(questionEscape(press("y"))).toBeUndefined();
  });
});

describe("offersAlways", () => {
  it("N6: a policy question offers \"Always allow\" to owners and admins only; one with nothing to remember to nobody", () => {
    expect(offersAlways({ always: ["echo *"] }, false)).toBe(true);
    expect(offersAlways({ always: ["echo *"], policy: true }, false)).toBe(false);
    expect(offersAlways({ always: ["echo *"], policy: true }, true)).toBe(true);
    expect(offersAlways({ always: [] }, true)).toBe(false);
  });
});
