import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { glob } from "./glob";
import { fakeContext, eachTempProject } from "../../test/tools";

const t = eachTempProject();

async function touch(rel: string, mtimeSeconds?: number) {
  const file = path.join(t.project, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, "x");
  if (mtimeSeconds !== undefined) await fs.utimes(file, mtimeSeconds, mtimeSeconds);
}

describe("glob", () => {
  it("returns matching files, newest first, skipping ignored directories", async () => {
    await touch("old.ts", 1_000_000);
    await touch("src/new.ts", 3_000_000);
    await touch("src/deep/mid.tsx", 2_000_000);
    await touch("src/readme.md", 4_000_000);
    await touch("node_modules/pkg/index.ts", 5_000_000);
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const result = await glob.execute({ pattern: "**/*.{ts,tsx}" }, ctx);
    expect(result.output).toBe("src/new.ts\nsrc/deep/mid.tsx\nold.ts");
    expect(result.metadata).toMatchObject({ count: 3, capped: false });
    expect(ctx.requests).toEqual([expect.objectContaining({ permission: "glob", patterns: ["**/*.{ts,tsx}"] })]);
  });

  it("matches a slash-free pattern at any depth and a path-relative one under `path`", async () => {
    await touch("a.ts");
    await touch("src/b.ts");
    await touch("src/sub/c.ts");
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    expect((await glob.execute({ pattern: "*.ts" }, ctx)).output.split("\n").sort()).toEqual(["a.ts", "src/b.ts", "src/sub/c.ts"]);
    expect((await glob.execute({ pattern: "sub/*.ts", path: "src" }, ctx)).output).toBe("src/sub/c.ts");
  });

  it("caps at 100 files with a note, and says when nothing matched", async () => {
    for (let i = 0; i < 120; i++) await touch(`many/f${i}.txt`);
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const result = await glob.execute({ pattern: "*.txt" }, ctx);
    expect(result.output.split("\n").filter((l) => l.startsWith("many/"))).toHaveLength(100);
    expect(result.output).toContain("(Showing the 100 newest of 120 files.");
    expect((await glob.execute({ pattern: "*.rs" }, ctx)).output).toBe("No files found");
  });

  it("refuses absolute patterns and asks external_directory for outside paths", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    await expect(glob.execute({ pattern: "/etc/*" }, ctx)).rejects.toThrow(/must be relative/);
    await expect(glob.execute({ pattern: "*", path: "../outside" }, ctx)).rejects.toThrow(/^rejected/);
    expect(ctx.requests).toEqual([expect.objectContaining({ permission: "external_directory", patterns: [t.outside] })]);
  });
});
