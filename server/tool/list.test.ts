import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { list } from "./list";
import { fakeContext, eachTempProject, watchAccess } from "../../test/tools";

const t = eachTempProject();

async function touch(rel: string, content = "") {
  const file = path.join(t.project, rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
}

describe("list", () => {
  it("prints a tree, directories first, skipping dependency and build directories", async () => {
    for (const f of ["README.md", "src/index.ts", "src/lib/util.ts", "node_modules/x/index.js", ".git/HEAD", "dist/out.js", ".next/cache.json"]) {
      await touch(f);
    }
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const result = await list.execute({}, ctx);
    expect(result.output).toBe(`./\n  src/\n    lib/\n      util.ts\n    index.ts\n  README.md`);
    expect(result.output).not.toContain(t.project);
    expect(result.metadata).toMatchObject({ count: 5, files: 3, capped: false });
    expect(ctx.requests).toEqual([expect.objectContaining({ permission: "list", patterns: ["."] })]);
  });

  it("lists a subdirectory and leaves out ignored globs", async () => {
    for (const f of ["src/a.ts", "src/a.log", "src/fixtures/big.json", "src/b.ts"]) await touch(f);
    const result = await list.execute({ path: "src", ignore: ["*.log", "fixtures/"] }, fakeContext({ directory: t.project, dataDir: t.dataDir }));
    expect(result.output).toBe(`src/\n  a.ts\n  b.ts`);
  });

  it("caps the listing at 100 entries with a note", async () => {
    for (let i = 0; i < 150; i++) await touch(`f${String(i).padStart(3, "0")}.txt`);
    const result = await list.execute({}, fakeContext({ directory: t.project, dataDir: t.dataDir }));
    expect(result.output.split("\n").filter((l) => l.startsWith("  f"))).toHaveLength(100);
    expect(result.output).toContain("(Showing the first 100 entries; there are more.");
    expect(result.metadata).toMatchObject({ capped: true });
  });

  it("fails clearly on a missing directory or a file", async () => {
    await touch("file.txt");
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    await expect(list.execute({ path: "nope" }, ctx)).rejects.toThrow("Directory not found: nope");
    await expect(list.execute({ path: "file.txt" }, ctx)).rejects.toThrow(/file.txt is not a directory/);
  });

  it("asks external_directory for `..`, absolute and symlinked directories and lists nothing when refused", async () => {
    await fs.symlink(t.outside, path.join(t.project, "out"));
    // N3: `..` holds the data directory: refused outright, without a question, nothing listed.
    const around = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const watched = watchAccess(path.dirname(t.project));
    await expect(list.execute({ path: ".." }, around)).rejects.toThrow(/^Access denied: \.\. is outside this project, in a place no tool may reach \(a folder that holds Parley's data/);
    watched.restore();
    expect(around.requests).toEqual([]);
    expect(watched.touched).toEqual([]);
    for (const p of ["../outside", t.outside, "out"]) {
      const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
      const access = watchAccess(t.outside);
      await expect(list.execute({ path: p }, ctx)).rejects.toThrow(/^rejected/);
      access.restore();
      expect(ctx.requests).toHaveLength(1);
      expect(ctx.requests[0]?.permission).toBe("external_directory");
      expect(access.touched).toEqual([]);
    }
  });
});
