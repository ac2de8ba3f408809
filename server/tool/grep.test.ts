import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { grep } from "./grep";
import { fakeContext, eachTempProject, watchAccess } from "../../test/tools";

const t = eachTempProject();

async function put(rel: string, content: string | Buffer, mtimeSeconds?: number) {
  const file = path.join(t.project, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
  if (mtimeSeconds !== undefined) await fs.utimes(file, mtimeSeconds, mtimeSeconds);
}

const ctxFor = () => fakeContext({ directory: t.project, dataDir: t.dataDir });

describe("grep", () => {
  it("groups matches by file (newest first) with line numbers", async () => {
    await put("src/a.ts", "const x = 1;\n// TODO: a\nlet y;\n", 1_000_000);
    await put("src/b.ts", "// TODO: b1\n// FIXME b2\n", 2_000_000);
    await put("node_modules/dep/index.ts", "// TODO: dep\n");
    await put("image.bin", Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0, 1, 2]));
    const ctx = ctxFor();
    const result = await grep.execute({ pattern: "TODO|FIXME" }, ctx);
    expect(result.output).toBe(
      ["Found 3 matches", "", "src/b.ts:", "  Line 1: // TODO: b1", "  Line 2: // FIXME b2", "", "src/a.ts:", "  Line 2: // TODO: a"].join("\n"),
    );
    expect(result.metadata).toMatchObject({ matches: 3, files: 2, capped: false });
    expect(ctx.requests).toEqual([expect.objectContaining({ permission: "grep", patterns: ["TODO|FIXME"] })]);
  });

  it("filters files with include and searches a single file given as path", async () => {
    await put("a.ts", "needle\n");
    await put("b.md", "needle\n");
    await put("src/c.tsx", "a needle here\n");
    const ctx = ctxFor();
    const included = await grep.execute({ pattern: "needle", include: "*.{ts,tsx}" }, ctx);
    expect(included.output).toContain("a.ts:");
    expect(included.output).toContain("src/c.tsx:");
    expect(included.output).not.toContain("b.md");
    expect((await grep.execute({ pattern: "needle", path: "b.md" }, ctx)).output).toBe("Found 1 matches\n\nb.md:\n  Line 1: needle");
  });

  it("ends the search early once far more lines than shown were found, saying the count is a lower bound", async () => {
    for (let i = 0; i < 40; i++) await put(`many/f${i}.txt`, Array.from({ length: 60 }, (_, j) => `hit ${i}.${j}`).join("\n"));
    const result = await grep.execute({ pattern: "^hit" }, ctxFor());
    expect(result.output).toMatch(/^Found at least 10\d\d matches \(showing the first 100\)/);
    expect(result.output.split("\n").filter((l) => l.startsWith("  Line"))).toHaveLength(100);
    expect(result.output).not.toContain("stopped");
  });

  it("runs a pattern that backtracking engines choke on in linear time", async () => {
    await put("aaa.txt", `${"a".repeat(30)}!\n${"a".repeat(5000)}b\n`);
    const result = await grep.execute({ pattern: "(a+)+$" }, ctxFor());
    expect(result.output).toBe("No matches found");
  });

  it("caps at 100 matches with a note", async () => {
    await put("many.txt", Array.from({ length: 150 }, (_, i) => `hit ${i}`).join("\n"));
    await put("more.txt", "hit again\n");
    const result = await grep.execute({ pattern: "^hit" }, ctxFor());
    expect(result.output.split("\n").filter((l) => l.startsWith("  Line"))).toHaveLength(100);
    expect(result.output).toMatch(/^Found at least 101 matches \(showing the first 100\)/);
    expect(result.output).toContain("(Results capped at 100 matches.");
  });

  it("skips files that reading would ask about (.env), reports no matches and rejects invalid regular expressions", async () => {
    await put(".env", "SECRET_TOKEN=abc\n");
    await put("config/prod.env", "SECRET_TOKEN=def\n");
    const ctx = ctxFor();
    const result = await grep.execute({ pattern: "SECRET_TOKEN" }, ctx);
    expect(result.output).toBe("No matches found\n\n(2 file(s) with matches skipped: reading them needs permission, such as .env files; use the read tool to view one.)");
    await expect(grep.execute({ pattern: "([a-" }, ctx)).rejects.toThrow(/Invalid regular expression/);
    await expect(grep.execute({ pattern: "x", path: "missing" }, ctx)).rejects.toThrow("Path not found: missing");
  });

  it("does not follow symlinks while walking and asks external_directory for outside paths", async () => {
    await fs.symlink(t.secret, path.join(t.project, "link.txt"));
    await fs.symlink(t.outside, path.join(t.project, "linkdir"));
    const ctx = ctxFor();
    const access = watchAccess(t.outside);
    expect((await grep.execute({ pattern: "SECRET" }, ctx)).output).toBe("No matches found");
    await expect(grep.execute({ pattern: "SECRET", path: "linkdir" }, ctx)).rejects.toThrow(/^rejected/);
    // N3: `/` holds the host's /proc and the data directory: refused outright, without a question.
    await expect(grep.execute({ pattern: "SECRET", path: "/" }, ctx)).rejects.toThrow(/^Access denied: \/ is outside this project, in a place no tool may reach/);
    access.restore();
    expect(access.touched).toEqual([]);
    expect(ctx.requests.filter((r) => r.permission === "external_directory")).toHaveLength(1);
  });
});
