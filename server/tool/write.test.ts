import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fakeContext, SECRET, eachTempProject, watchAccess } from "./testing";
import { write } from "./write";

const t = eachTempProject();

const ctxFor = () => fakeContext({ directory: t.project, dataDir: t.dataDir });

describe("write", () => {
  it("creates a file with its parent directories and asks edit permission with the relative path", async () => {
    const ctx = ctxFor();
    const result = await write.execute({ filePath: "a/b/new.txt", content: "one\ntwo\n" }, ctx);
    expect(await fs.readFile(path.join(t.project, "a/b/new.txt"), "utf8")).toBe("one\ntwo\n");
    expect(result.metadata).toMatchObject({ existed: false, additions: 2, deletions: 0, filePath: "a/b/new.txt" });
    expect(result.output).toBe("Created a/b/new.txt (2 lines added, 0 removed).");
    expect(ctx.requests).toEqual([expect.objectContaining({ permission: "edit", patterns: ["a/b/new.txt"] })]);
    expect(ctx.requests[0]?.metadata?.diff).toContain("+one");
  });

  it("overwrites an existing file and reports the diff", async () => {
    await fs.writeFile(path.join(t.project, "f.txt"), "keep\nold\n");
    const result = await write.execute({ filePath: "f.txt", content: "keep\nnew\nmore\n" }, ctxFor());
    expect(await fs.readFile(path.join(t.project, "f.txt"), "utf8")).toBe("keep\nnew\nmore\n");
    expect(result.metadata).toMatchObject({ existed: true, additions: 2, deletions: 1 });
    expect(result.metadata.diff).toContain("-old\n+new\n+more");
  });

  it("does not write when edit permission is refused, and refuses directories", async () => {
    const refusing = fakeContext({ directory: t.project, dataDir: t.dataDir, reject: ["edit"] });
    await expect(write.execute({ filePath: "no.txt", content: "x" }, refusing)).rejects.toThrow("rejected: edit");
    await expect(fs.access(path.join(t.project, "no.txt"))).rejects.toThrow();
    await fs.mkdir(path.join(t.project, "dir"));
    await expect(write.execute({ filePath: "dir", content: "x" }, ctxFor())).rejects.toThrow("dir is a directory, not a file.");
  });

  it("never writes outside the project when external_directory is refused", async () => {
    await fs.symlink(t.secret, path.join(t.project, "link.txt"));
    await fs.symlink(path.join(t.outside, "created-through-link.txt"), path.join(t.project, "dangling.txt"));
    for (const filePath of ["../outside/secret.txt", "../outside/new.txt", t.secret, "link.txt", "dangling.txt"]) {
      const ctx = ctxFor();
      const access = watchAccess(t.outside);
      await expect(write.execute({ filePath, content: "pwned" }, ctx)).rejects.toThrow(/^rejected/);
      access.restore();
      expect(access.touched).toEqual([]);
      expect(ctx.requests.map((r) => r.permission)).toEqual(["external_directory"]);
    }
    expect(await fs.readFile(t.secret, "utf8")).toBe(`${SECRET}\n`);
    expect((await fs.readdir(t.outside)).sort()).toEqual(["secret.txt"]);
  });
});
