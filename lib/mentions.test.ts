import { describe, expect, it } from "vitest";
import { activeMention, insertMention, mentionedPaths } from "./mentions";

describe("@ mentions in the composer's text", () => {
  it("finds the mention being typed at the caret", () => {
    expect(activeMention("explain @src/gr", 15)).toEqual({ start: 8, query: "src/gr" });
    expect(activeMention("@", 1)).toEqual({ start: 0, query: "" });
    expect(activeMention("look\n@READ", 10)).toEqual({ start: 5, query: "READ" });
    // The caret inside the token: only what is before it counts.
    expect(activeMention("see @src/greet.ts now", 8)).toEqual({ start: 4, query: "src" });
  });

  it("ignores an @ inside a word (an email) and a finished mention", () => {
    expect(activeMention("mail me@example.com", 19)).toBeUndefined();
    expect(activeMention("see @src/greet.ts now", 21)).toBeUndefined();
    expect(activeMention("no mention", 10)).toBeUndefined();
  });

  it("puts the chosen path in place of the typed query, with a space after it", () => {
    const text = "explain @src/gr";
    expect(insertMention(text, { start: 8, query: "src/gr" }, 15, "src/greet.ts")).toEqual({ text: "explain @src/greet.ts ", caret: 22 });
    // The rest of the token after the caret is replaced too; an existing space is kept.
    expect(insertMention("a @sr please", { start: 2, query: "s" }, 4, "src/math.ts")).toEqual({ text: "a @src/math.ts please", caret: 15 });
  });

  it("sends only the chosen files the text still mentions", () => {
    const chosen = ["src/greet.ts", "src/math.ts", "README.md"];
    expect(mentionedPaths("explain @src/greet.ts, and @README.md.", chosen)).toEqual(["src/greet.ts", "README.md"]);
    expect(mentionedPaths("@src/math.ts", chosen)).toEqual(["src/math.ts"]);
    // A longer path that starts like a chosen one is not that one.
    expect(mentionedPaths("@src/greet.tsx", chosen)).toEqual([]);
    expect(mentionedPaths("email x@src/greet.ts", chosen)).toEqual([]);
  });
});
