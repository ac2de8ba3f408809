import { describe, expect, it } from "vitest";
import { parseReadOutput, readText } from "./read-output";

describe("parseReadOutput", () => {
  it("takes the numbered lines and the footer of a whole file", () => {
    const output = ["<file>", "00001| export function greet(name: string) {", "00002|   return `Hello, ${name}!`;", "00003| }", "", "(End of file - total 3 lines)", "</file>"].join("\n");
    const parsed = parseReadOutput(output);
    expect(parsed).toEqual({
      lines: [
        { number: 1, text: "export function greet(name: string) {" },
        { number: 2, text: "  return `Hello, ${name}!`;" },
        { number: 3, text: "}" },
      ],
      note: "(End of file - total 3 lines)",
    });
    expect(parsed && readText(parsed)).toBe("export function greet(name: string) {\n  return `Hello, ${name}!`;\n}");
  });

  it("keeps the file's own numbers from an offset, empty lines, and text that looks like markup or a prefix", () => {
    const output = ["<file>", "00120| ", "00121| 00007| not a prefix", "00122| </file>", "", "(File has more lines: use offset=123 to read beyond line 122; 300 lines in total)", "</file>"].join("\n");
    expect(parseReadOutput(output)).toEqual({
      lines: [
        { number: 120, text: "" },
        { number: 121, text: "00007| not a prefix" },
        { number: 122, text: "</file>" },
      ],
      note: "(File has more lines: use offset=123 to read beyond line 122; 300 lines in total)",
    });
  });

  it("reads numbers past 99999 and an empty file", () => {
    expect(parseReadOutput("<file>\n99999| a\n100000| b\n\n(End of file - total 100000 lines)\n</file>")?.lines.map((l) => l.number)).toEqual([99999, 100000]);
    expect(parseReadOutput("<file>\n\n(End of file - total 0 lines)\n</file>")).toEqual({ lines: [], note: "(End of file - total 0 lines)" });
  });

  it("keeps a truncation notice (no closing tag) as the note", () => {
    const output = ["<file>", "00001| a", "00002| b", "", "...1 more line truncated. The full output was saved to /data/x.txt", "Use grep or read with offset/limit."].join("\n");
    expect(parseReadOutput(output)).toEqual({
      lines: [
        { number: 1, text: "a" },
        { number: 2, text: "b" },
      ],
      note: "...1 more line truncated. The full output was saved to /data/x.txt\nUse grep or read with offset/limit.",
    });
  });

  it("is undefined for other text: no <file> opening, or numbers that do not count up", () => {
    expect(parseReadOutput("1\texport function greet() {}")).toBeUndefined();
    expect(parseReadOutput("File not found: a.txt")).toBeUndefined();
    expect(parseReadOutput("<file>\n00001| a\n00003| b\n</file>")).toBeUndefined();
  });
});
