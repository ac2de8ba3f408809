import { describe, expect, it } from "vitest";
import { MAX_IMAGE_BYTES, convert, mcpTool, schemaOf } from "./tools";

/** A tool server's tools as the agent's: names, schemas checked, results read as untrusted content. */

describe("tool server tools", () => {
  it("are named <server>_<tool>, sanitised and cut to 64 characters; the input is checked against the announced schema", () => {
    const tool = mcpTool("my.docs", { name: "search pages", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } }, () => Promise.resolve(undefined));
    if ("refused" in tool) throw new Error(tool.refused);
    expect(tool.id).toBe("my_docs_search_pages");
    expect(tool.parameters.safeParse({ q: "x" }).success).toBe(true);
    expect(tool.parameters.safeParse({ q: 1 }).success).toBe(false);
    expect(tool.parameters.safeParse({}).success).toBe(false);
    const long = mcpTool("s", { name: "t".repeat(100), inputSchema: { type: "object" } }, () => Promise.resolve(undefined));
    expect("id" in long && long.id.length).toBe(64);
  });

  it("leave out a tool whose schema is not an object, cannot be read, or is too large", () => {
    expect(schemaOf({ name: "a", inputSchema: { type: "string" } })).toEqual({ refused: "its input schema is not an object" });
    expect(schemaOf({ name: "b", inputSchema: { type: "object", properties: { x: { $ref: "#/nowhere" } } } })).toMatchObject({ refused: expect.stringContaining("cannot be read") });
    expect(schemaOf({ name: "c", inputSchema: { type: "object", description: "x".repeat(70_000) } })).toMatchObject({ refused: expect.stringContaining("larger than") });
  });

  it("turn a result into text and image attachments; other content is named, not passed on", () => {
    const png = Buffer.from("fake png").toString("base64");
    const result = convert({
      content: [
        { type: "text", text: "Hello" },
        { type: "image", data: png, mimeType: "image/png" },
        { type: "image", data: png, mimeType: "image/svg+xml" },
        { type: "image", data: "A".repeat(Math.ceil((MAX_IMAGE_BYTES * 4) / 3) + 8), mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///notes.md", text: "Notes" } },
        { type: "resource", resource: { uri: "file:///a.bin", mimeType: "application/octet-stream", blob: png } },
        { type: "resource_link", uri: "https://example.com/x", name: "x" },
        { type: "audio", data: png, mimeType: "audio/wav" },
      ],
    });
    expect(result.attachments).toEqual([{ mime: "image/png", url: `data:image/png;base64,${png}` }]);
    expect(result.output).toContain("Hello");
    expect(result.output).toContain("(an image of type image/svg+xml was left out)");
    expect(result.output).toMatch(/an image of \d+ bytes was left out/);
    expect(result.output).toContain("Resource file:///notes.md:\nNotes");
    expect(result.output).toContain("(resource file:///a.bin of type application/octet-stream is binary and was left out)");
    expect(result.output).toContain("Resource link: x (https://example.com/x)");
    expect(result.output).toContain("(content of type audio was left out)");
    expect(convert({ structuredContent: { n: 1 } }).output).toBe('{\n  "n": 1\n}');
    expect(convert({ isError: true, content: [{ type: "text", text: "bad" }] })).toMatchObject({ isError: true, output: "bad" });
    expect(convert("nonsense").isError).toBe(true);
  });
});
