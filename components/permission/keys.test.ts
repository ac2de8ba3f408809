import { describe, expect, it } from "vitest";
import { type FocusTarget, type KeyPress, answerForKey, isTextField, offersAlways } from "./keys";

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

describe("offersAlways", () => {
  it("N6: a policy question offers \"Always allow\" to owners and admins only; one with nothing to remember to nobody", () => {
    expect(offersAlways({ always: ["echo *"] }, false)).toBe(true);
    expect(offersAlways({ always: ["echo *"], policy: true }, false)).toBe(false);
    expect(offersAlways({ always: ["echo *"], policy: true }, true)).toBe(true);
    expect(offersAlways({ always: [] }, true)).toBe(false);
  });
});
