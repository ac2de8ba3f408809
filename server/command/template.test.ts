import { describe, expect, it } from "vitest";
import { expand, fileReferences, hints, shellCommands, withOutputs } from "./template";

/** Command templates as OpenCode expands them. */
describe("command templates", () => {
  it("$ARGUMENTS is the arguments as typed", () => {
    expect(expand("Fix $ARGUMENTS now", ' the "parser" bug ')).toBe('Fix  the "parser" bug  now');
  });

  it("$1 … $n are the words; the highest-numbered takes the rest; quotes are dropped", () => {
    expect(expand("from $1 to $2", 'a "b c" d e')).toBe("from a to b c d e");
    expect(expand("$2 then $1 then $2", "x y z")).toBe("y z then x then y z");
    expect(expand("only $1", "one two three")).toBe("only one two three");
  });

  it("a missing argument is empty", () => {
    expect(expand("[$1] [$2] [$3]", "a")).toBe("[a] [] []");
  });

  it("without a placeholder the arguments are appended after a blank line; without arguments nothing is", () => {
    expect(expand("Summarize.", "focus on tests")).toBe("Summarize.\n\nfocus on tests");
    expect(expand("Summarize.", "  ")).toBe("Summarize.");
  });

  it("an argument holding $ patterns is put in as it is", () => {
    expect(expand("say $ARGUMENTS", "$& $1 $$")).toBe("say $& $1 $$");
    expect(expand("say $1", "$&")).toBe("say $&");
  });

  it("hints list $1…$n in order, then $ARGUMENTS", () => {
    expect(hints("$2 $1 $10 $ARGUMENTS $1")).toEqual(["$1", "$2", "$10", "$ARGUMENTS"]);
    expect(hints("plain")).toEqual([]);
  });

  it("!`cmd` blocks are found in order and replaced by their outputs", () => {
    const text = "a !`git status` b !`ls -la` c !`` d";
    expect(shellCommands(text)).toEqual(["git status", "ls -la"]);
    expect(withOutputs("a !`git status` b !`ls -la` c", ["clean", "x y"])).toBe("a clean b x y c");
  });

  it("@path: files, not e-mail addresses or quoted references; trailing punctuation left out", () => {
    expect(fileReferences("Read @src/a.ts, @docs/notes.md. Mail ann@example.com and `@skip.ts`; again @src/a.ts")).toEqual(["src/a.ts", "docs/notes.md"]);
  });
});
