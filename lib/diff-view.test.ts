import { describe, expect, it } from "vitest";
import { unifiedDiff } from "../server/tool/diff";
import { type DiffRow, diffTexts, parseDiff } from "./diff-view";

/** A row as `kind old new text`, for compact expectations. */
const brief = (row: DiffRow) => `${row.kind} ${row.oldLine ?? "-"} ${row.newLine ?? "-"} ${row.text}${row.noNewline ? " ⏎̸" : ""}`;
/** The changed pieces of a row's word-level marks. */
const marked = (row: DiffRow | undefined) => row?.segments?.filter((s) => s.changed).map((s) => s.text);

describe("parseDiff", () => {
  it("numbers old and new lines through context, removed and added lines", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const after = before.replace("line 10\n", "line ten\nline 10.5\n");
    const parsed = parseDiff(unifiedDiff("src/f.txt", before, after).diff);
    expect(parsed?.complete).toBe(true);
    const [file] = parsed?.files ?? [];
    expect(file).toMatchObject({ name: "src/f.txt", change: "modified", additions: 2, deletions: 1, binary: false, lineEndings: undefined });
    expect(file?.hunks).toHaveLength(1);
    expect(file?.hunks[0]?.header).toBe("@@ -7,7 +7,8 @@");
    expect(file?.hunks[0]?.rows.map(brief)).toEqual([
      "context 7 7 line 7",
      "context 8 8 line 8",
      "context 9 9 line 9",
      "del 10 - line 10",
      "add - 10 line ten",
      "add - 11 line 10.5",
      "context 11 12 line 11",
      "context 12 13 line 12",
      "context 13 14 line 13",
    ]);
  });

  it("marks the words that changed inside a removed/added pair, and only those", () => {
    const parsed = parseDiff(unifiedDiff("greet.ts", "const greeting = `Hello, ${name}!`;\n", "const greeting = `Goodbye, ${name}!`;\n").diff);
    const rows = parsed?.files[0]?.hunks[0]?.rows ?? [];
    expect(rows.map((r) => r.kind)).toEqual(["del", "add"]);
    expect(marked(rows[0])).toEqual(["Hello"]);
    expect(marked(rows[1])).toEqual(["Goodbye"]);
    // The pieces put together are the line.
    expect(rows[1]?.segments?.map((s) => s.text).join("")).toBe(rows[1]?.text);
  });

  it("pairs removed lines with the added lines after them in order; extra lines stay unpaired", () => {
    const diff = ["--- a/f", "+++ b/f", "@@ -1,2 +1,3 @@", "-alpha one", "-beta two", "+alpha 1", "+beta 2", "+gamma three"].join("\n");
    const rows = parseDiff(diff)?.files[0]?.hunks[0]?.rows ?? [];
    expect(marked(rows[0])).toEqual(["one"]);
    expect(marked(rows[2])).toEqual(["1"]);
    expect(marked(rows[1])).toEqual(["two"]);
    expect(marked(rows[3])).toEqual(["2"]);
    expect(rows[4]?.segments).toBeUndefined();
  });

  it("leaves a rewritten line without word marks", () => {
    const rows = parseDiff(["--- a/f", "+++ b/f", "@@ -1 +1 @@", "-import { a } from 'x';", "+export default function main() {}"].join("\n"))?.files[0]?.hunks[0]?.rows ?? [];
    expect(rows.map((r) => r.segments)).toEqual([undefined, undefined]);
  });

  it("shows a removed trailing newline: the new last line is marked as having no newline", () => {
    const parsed = parseDiff(unifiedDiff("f.txt", "one\ntwo\n", "one\ntwo").diff);
    const file = parsed?.files[0];
    expect(file?.hunks[0]?.rows.map(brief)).toEqual(["context 1 1 one", "del 2 - two", "add - 2 two ⏎̸"]);
    expect(file).toMatchObject({ additions: 1, deletions: 1, lineEndings: undefined });
  });

  it("shows a line-ending change: the \\r stays in the text, is the only marked piece, and the file says LF → CRLF", () => {
    const parsed = parseDiff(unifiedDiff("win.txt", "a = 1\nb = 2\n", "a = 1\r\nb = 2\r\n").diff);
    const file = parsed?.files[0];
    const rows = file?.hunks[0]?.rows ?? [];
    expect(rows.map(brief)).toEqual(["del 1 - a = 1", "del 2 - b = 2", "add - 1 a = 1\r", "add - 2 b = 2\r"]);
    expect(marked(rows[2])).toEqual(["\r"]);
    expect(marked(rows[0])).toEqual([]);
    expect(file?.lineEndings).toBe("LF → CRLF");
    expect(parseDiff(unifiedDiff("win.txt", "a\r\n", "a\n").diff)?.files[0]?.lineEndings).toBe("CRLF → LF");
    // A real edit next to the new endings is not "only line endings".
    expect(parseDiff(unifiedDiff("win.txt", "a\nb\n", "a\r\nc\r\n").diff)?.files[0]?.lineEndings).toBeUndefined();
  });

  it("reads a multi-file git diff: modified, added, deleted, renamed and binary files", () => {
    const text = [
      "diff --git a/src/a.ts b/src/a.ts",
      "index 1111111..2222222 100644",
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -1,2 +1,2 @@ export function a() {",
      " keep",
      "-old",
      "+new",
      "diff --git a/new.txt b/new.txt",
      "new file mode 100644",
      "index 0000000..3333333",
      "--- /dev/null",
      "+++ b/new.txt",
      "@@ -0,0 +1 @@",
      "+hello",
      "diff --git a/gone.txt b/gone.txt",
      "deleted file mode 100644",
      "index 4444444..0000000",
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-bye",
      "\\ No newline at end of file",
      "diff --git a/old-name.md b/new-name.md",
      "similarity index 100%",
      "rename from old-name.md",
      "rename to new-name.md",
      "diff --git a/logo.png b/logo.png",
      "index 5555555..6666666 100644",
      "Binary files a/logo.png and b/logo.png differ",
      "",
    ].join("\n");
    const parsed = parseDiff(text);
    expect(parsed?.complete).toBe(true);
    expect(parsed?.files.map((f) => [f.name, f.change, f.from, f.binary, f.additions, f.deletions])).toEqual([
      ["src/a.ts", "modified", undefined, false, 1, 1],
      ["new.txt", "added", undefined, false, 1, 0],
      ["gone.txt", "deleted", undefined, false, 0, 1],
      ["new-name.md", "renamed", "old-name.md", false, 0, 0],
      ["logo.png", "modified", undefined, true, 0, 0],
    ]);
    expect(parsed?.files[1]?.hunks[0]?.header).toBe("@@ -0,0 +1,1 @@");
    expect(parsed?.files[1]?.hunks[0]?.rows.map(brief)).toEqual(["add - 1 hello"]);
    expect(parsed?.files[2]?.hunks[0]?.rows.map(brief)).toEqual(["del 1 - bye ⏎̸"]);
  });

  it("keeps what it can of a diff cut inside a hunk, and says it is incomplete", () => {
    const text = ["diff --git a/a b/a", "--- a/a", "+++ b/a", "@@ -1 +1 @@", "-x", "+y", "diff --git a/b b/b", "--- a/b", "+++ b/b", "@@ -1,3 +1,3 @@", " one", "-tw"].join("\n");
    const parsed = parseDiff(text);
    expect(parsed?.complete).toBe(false);
    expect(parsed?.files.map((f) => [f.name, f.hunks.length])).toEqual([
      ["a", 1],
      ["b", 0],
    ]);
  });

  it("is undefined for text that is not a diff", () => {
    expect(parseDiff("just some words\nand more")).toBeUndefined();
    expect(parseDiff("")).toBeUndefined();
  });
});

describe("diffTexts", () => {
  it("diffs two snippets with every line kept as context", () => {
    const before = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
    const parsed = diffTexts("f.ts", before, before.replace("e\n", "E\n"));
    expect(parsed.files[0]?.name).toBe("f.ts");
    expect(parsed.files[0]?.change).toBe("modified");
    expect(parsed.files[0]?.hunks[0]?.rows).toHaveLength(10);
  });

  it("has no hunks when nothing changed", () => {
    expect(diffTexts("f", "same", "same").files[0]?.hunks).toEqual([]);
  });
});
