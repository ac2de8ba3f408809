import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { edit } from "./edit";
import { fakeContext, SECRET, eachTempProject, watchAccess } from "../../test/tools";
import { outputDirectory } from "./truncate";
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

  it("N5: refuses to write over a FIFO at once, without blocking or changing it", async () => {
    const fifo = path.join(t.project, "pipe");
    execFileSync("mkfifo", [fifo]);
    await expect(write.execute({ filePath: "pipe", content: "x" }, ctxFor())).rejects.toThrow(/^pipe is (a named pipe \(FIFO\)|not a regular file).*: only regular files can be read or written\.$/);
    await expect(edit.execute({ filePath: "pipe", oldString: "a", newString: "b" }, ctxFor())).rejects.toThrow(/^pipe is a named pipe \(FIFO\): only regular files/);
    expect((await fs.lstat(fifo)).isFIFO()).toBe(true);
  });

  it("N2: writes outside the project (where the rules allow it) in the sandbox, the server never opening the file", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, rejectExternal: false });
    // Outside, the sandbox changes only what the host lets its user change: a folder shared
    // with that user (as an operator would set one up) is writable, a root-only file is not.
    const owner = ctx.sandbox.owner;
    const rootOnly = path.join(t.outside, "root-only.txt");
    await fs.writeFile(rootOnly, "root's\n", { mode: 0o644 });
    if (owner) {
      await fs.chown(t.outside, owner.uid, owner.gid);
      await fs.chown(t.secret, owner.uid, owner.gid);
      await expect(write.execute({ filePath: rootOnly, content: "overwritten\n" }, ctx)).rejects.toThrow(/Permission denied/);
      expect(await fs.readFile(rootOnly, "utf8")).toBe("root's\n");
    }
    await fs.rm(rootOnly);
    const spawn = vi.spyOn(ctx.sandbox, "spawn");
    const access = watchAccess(t.outside);
    let binds;
    try {
      await write.execute({ filePath: "../outside/new.txt", content: "from the sandbox\n" }, ctx);
      await write.execute({ filePath: t.secret, content: "replaced\n" }, ctx);
      await edit.execute({ filePath: t.secret, oldString: "replaced", newString: "edited" }, ctx);
    } finally {
      access.restore();
      binds = spawn.mock.calls.map(([spec]) => spec.writable ?? []);
      spawn.mockRestore();
    }
    expect(access.touched).toEqual([]);
    expect(await fs.readFile(path.join(t.outside, "new.txt"), "utf8")).toBe("from the sandbox\n");
    expect(await fs.readFile(t.secret, "utf8")).toBe("edited\n");
    // A new file: its folder bound read-write; an existing one: only the file itself.
    expect(binds.filter((b) => b.length > 0)).toEqual([[t.outside], [t.secret], [t.secret]]);
    // A folder that does not exist outside is not made.
    await expect(write.execute({ filePath: "../outside/deeper/x.txt", content: "x" }, ctx)).rejects.toThrow(/does not exist: a file outside the project can only be written into an existing folder/);
  });

  it("D2: a subagent reads its parent's saved outputs without a question, but nobody writes them", async () => {
    const parentOutputs = outputDirectory(t.dataDir, "team_test", "ses_parent");
    await fs.mkdir(parentOutputs, { recursive: true });
    const saved = path.join(parentOutputs, "call_1.txt");
    await fs.writeFile(saved, "line one\nline two\n");
    const child = fakeContext({ directory: t.project, dataDir: t.dataDir, sessionId: "ses_child", savedOutputs: [parentOutputs] });
    const { read } = await import("./read");
    expect((await read.execute({ filePath: saved }, child)).output).toContain("00002| line two");
    await expect(write.execute({ filePath: saved, content: "changed" }, child)).rejects.toThrow(/is a saved tool output: saved outputs can be read, not changed/);
    await expect(edit.execute({ filePath: saved, oldString: "one", newString: "1" }, child)).rejects.toThrow(/saved outputs can be read, not changed/);
    expect(child.requests.filter((r) => r.permission === "external_directory")).toEqual([]);
    // Another session (not a descendant) still cannot.
    const stranger = fakeContext({ directory: t.project, dataDir: t.dataDir, sessionId: "ses_stranger" });
    await expect(read.execute({ filePath: saved }, stranger)).rejects.toThrow(/Access denied/);
    expect(await fs.readFile(saved, "utf8")).toBe("line one\nline two\n");
  });
});
