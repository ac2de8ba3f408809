import { describe, expect, it } from "vitest";
import { TITLE_PROMPT, cleanTitle, fallbackTitle, userText } from "./title";
import { historyBuilder, text } from "../../test/history";

/** Generated titles: cleaning the model's answer, and the fallback. */

describe("cleanTitle", () => {
  it("takes the first non-empty line, trimmed", () => {
    expect(cleanTitle("\n\n  Fix the login redirect  \nBecause the user asked about…")).toBe("Fix the login redirect");
  });

  it("strips <think> blocks, also several, multi-line, and an unclosed one", () => {
    expect(cleanTitle("<think>\nThe user wants a title.\nMaybe X.\n</think>\n\nRefactor the parser")).toBe("Refactor the parser");
    expect(cleanTitle("<think>a</think><THINK>b</THINK>Débogage du cache")).toBe("Débogage du cache");
    expect(cleanTitle("Add tests<think>never closed\nmore")).toBe("Add tests");
    expect(cleanTitle("<think>only thinking</think>")).toBeUndefined();
  });

  it("cuts to 100 characters", () => {
    const long = "word ".repeat(40);
    const title = cleanTitle(long) ?? "";
    expect(title.length).toBeLessThanOrEqual(100);
    expect(long.startsWith(title)).toBe(true);
    // Characters, not UTF-16 units: no half emoji.
    expect(Array.from(cleanTitle("😀".repeat(150)) ?? "")).toHaveLength(100);
  });

  it("drops a label, quotes and markdown around the title", () => {
    expect(cleanTitle('Title: "Set up CI"')).toBe("Set up CI");
    expect(cleanTitle("# **Speed up the build**")).toBe("Speed up the build");
    expect(cleanTitle("“修复登录问题”")).toBe("修复登录问题");
  });

  it("returns undefined for an empty answer", () => {
    expect(cleanTitle("")).toBeUndefined();
    expect(cleanTitle("  \n \n")).toBeUndefined();
    expect(cleanTitle('""')).toBeUndefined();
  });
});

describe("fallbackTitle", () => {
  it("is the first line of the user's message, whitespace collapsed", () => {
    expect(fallbackTitle("\n  Fix   the tests\nthey fail on CI")).toBe("Fix the tests");
  });

  it("cuts a long line near 50 characters with an ellipsis", () => {
    const title = fallbackTitle("Please refactor the whole authentication module so that it uses the new session store");
    expect(Array.from(title)).toHaveLength(50);
    expect(title.endsWith("…")).toBe(true);
    expect(title.startsWith("Please refactor the whole authentication module")).toBe(true);
    expect(fallbackTitle("x".repeat(50))).toBe("x".repeat(50));
  });

  it("never looks like a default title, even for an empty message", () => {
    expect(fallbackTitle("   ")).toBe("Untitled session");
  });
});

describe("title request", () => {
  it("asks for at most 50 characters in the user's language", () => {
    expect(TITLE_PROMPT).toContain("50 characters");
    expect(TITLE_PROMPT).toContain("same language");
  });

  it("uses the user's real text only", () => {
    const h = historyBuilder();
    const u = h.user([text("real"), text("synthetic", { synthetic: true }), text("ignored", { ignored: true }), text("  "), text("more")]);
    expect(userText(u.parts)).toBe("real\n\nmore");
  });

  it("names a session that starts with a subtask by the subtask's prompt", () => {
    const h = historyBuilder();
    const u = h.user([]);
    const subtask = { id: "prt_s", sessionId: u.info.sessionId, messageId: u.info.id, type: "subtask" as const, prompt: "find where greet is defined", description: "find greet", agent: "explore" };
    expect(userText([subtask])).toBe("find where greet is defined");
  });
});
