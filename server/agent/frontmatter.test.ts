import { describe, expect, it } from "vitest";
import { FrontmatterError, MAX_FRONTMATTER_CHARS, splitFrontmatter } from "./frontmatter";

/** The frontmatter of repository files: the YAML agent and command files use, nothing that runs or expands. */
describe("frontmatter", () => {
  it("reads scalars, nested mappings, flow mappings, quoted keys and block scalars", () => {
    const text = [
      "---",
      "description: Reviews code # a comment",
      "mode: subagent",
      "temperature: 0.2",
      "steps: 12",
      "hidden: true",
      "model: 'anthropic/claude-sonnet'",
      "tools: {write: false, \"mcp_*\": false}",
      "permission:",
      "  edit: deny",
      "  bash:",
      '    "git *": allow',
      "    '*': ask",
      "notes: |",
      "  line one",
      "    indented",
      "---",
      "",
      "The body.",
    ].join("\n");
    const { data, body } = splitFrontmatter(text);
    expect(data).toEqual({
      description: "Reviews code",
      mode: "subagent",
      temperature: 0.2,
      steps: 12,
      hidden: true,
      model: "anthropic/claude-sonnet",
      tools: { write: false, "mcp_*": false },
      permission: { edit: "deny", bash: { "git *": "allow", "*": "ask" } },
      notes: "line one\n  indented\n",
    });
    expect(body).toBe("The body.");
  });

  it("a file without frontmatter is all body", () => {
    expect(splitFrontmatter("Just a template $ARGUMENTS\n")).toEqual({ data: {}, body: "Just a template $ARGUMENTS" });
  });

  it.each([
    ["an anchor", "a: &x 1"],
    ["an alias", "a: *x"],
    ["a tag", "a: !!js/function 'f'"],
    ["a prototype key", "__proto__: 1"],
    ["a repeated key", "a: 1\na: 2"],
    ["a block list", "a:\n  - 1"],
    ["an unterminated flow mapping", "a: {b: 1"],
    ["an unterminated string", "a: \"b"],
  ])("refuses %s", (_, yaml) => {
    expect(() => splitFrontmatter(`---\n${yaml}\n---\nbody`)).toThrow(FrontmatterError);
  });

  it("refuses a frontmatter block past the size limit and deep nesting", () => {
    expect(() => splitFrontmatter(`---\na: "${"x".repeat(MAX_FRONTMATTER_CHARS)}"\n---\n`)).toThrow(/longer than/);
    const deep = Array.from({ length: 10 }, (_, i) => `${"  ".repeat(i)}k${i}:`).join("\n") + ` v`;
    expect(() => splitFrontmatter(`---\n${deep}\n---\n`)).toThrow(FrontmatterError);
  });
});
