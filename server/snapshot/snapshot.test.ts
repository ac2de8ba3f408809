import { execFileSync, spawn } from "node:child_process";
import { existsSync, promises as fs, readFileSync, readdirSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { directoryDigest as digest, fileTree } from "../../test/files";
import { type ProgramRunner, programHelper } from "../process/helper";
import { ProjectMissingError, SnapshotUnavailableError, Snapshots } from "./snapshot";

/** The real system git on real directories: a plain folder and a git repository. */

let dir: string;
let project: { id: string; directory: string };
let snapshots: Snapshots;

async function write(file: string, content: string) {
  await fs.mkdir(path.dirname(path.join(project.directory, file)), { recursive: true });
  await fs.writeFile(path.join(project.directory, file), content);
}

const tree = (root = project.directory) => fileTree(root);


beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "parley-snapshot-"));
  project = { id: "prj_test1", directory: path.join(dir, "project") };
  await fs.mkdir(project.directory);
  snapshots = new Snapshots({ root: path.join(dir, "data", "snapshot"), maxFileBytes: 1024 });
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("Snapshots (real git)", () => {
  it("gives the same tree for the same files and lists exactly the files that changed, with git's numstat", async () => {
    await write("a.txt", "one\ntwo\n");
    await write("src/b.ts", "export const b = 1;\n");
    await write("gone.txt", "bye\n");
    const first = await snapshots.track(project);
    expect(await snapshots.track(project)).toBe(first);
    await write("a.txt", "one\n2\nthree\n");
    await write("src/new/c.ts", "c\n");
    await fs.rm(path.join(project.directory, "gone.txt"));
    const second = await snapshots.track(project);
    expect(second).not.toBe(first);
    expect(await snapshots.changed(project, first, second)).toEqual(["a.txt", "gone.txt", "src/new/c.ts"]);
    const gitDir = path.join(dir, "data", "snapshot", project.id);
    const expected = execFileSync("git", ["--git-dir", gitDir, "diff-tree", "-r", "--numstat", first, second], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => {
        const [additions, deletions, file] = line.split("\t");
        return { file, additions: Number(additions), deletions: Number(deletions) };
      });
    expect(await snapshots.numstat(project, first, second)).toEqual(expected);
    expect(await snapshots.numstat(project, first, second)).toEqual([
      { file: "a.txt", additions: 2, deletions: 1 },
      { file: "gone.txt", additions: 0, deletions: 1 },
      { file: "src/new/c.ts", additions: 1, deletions: 0 },
    ]);
    const diff = await snapshots.diffText(project, first, second);
    expect(diff.truncated).toBe(false);
    expect(diff.text).toContain("+three");
  });

  it("honours .gitignore, leaves out large files and nested repositories, stores symlinks without following them", async () => {
    await write(".gitignore", "*.log\nbuild/\n");
    await write("app.log", "noise\n");
    await write("build/out.js", "x\n");
    await write("big.bin", "x".repeat(2048));
    await write("nested/inner.txt", "inner\n");
    execFileSync("git", ["init", "-q", path.join(project.directory, "nested")]);
    await fs.symlink("/etc/passwd", path.join(project.directory, "link"));
    await write("kept.txt", "kept\n");
    const before = await snapshots.track(project);
    await write("kept.txt", "changed\n");
    const after = await snapshots.track(project);
    expect(await snapshots.changed(project, before, after)).toEqual(["kept.txt"]);
    const gitDir = path.join(dir, "data", "snapshot", project.id);
    const listing = execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-r", before], { encoding: "utf8" });
    expect(listing).toMatch(/^120000 blob \w+\tlink$/m);
    expect(listing).toContain("\tkept.txt");
    expect(listing).not.toMatch(/app\.log|build\/|big\.bin|nested/);
  });

  it("restores files to a snapshot: created files and their empty folders go, deleted files return, edits are undone", async () => {
    await write("a.txt", "original\n");
    await write("deleted.txt", "still here\n");
    const before = await snapshots.track(project);
    const stateBefore = tree();
    await write("a.txt", "edited\n");
    await write("fresh/deep/new.txt", "new\n");
    await fs.rm(path.join(project.directory, "deleted.txt"));
    const after = await snapshots.track(project);
    await snapshots.restore(project, before, await snapshots.changed(project, before, after));
    expect(tree()).toEqual(stateBefore);
    await expect(fs.access(path.join(project.directory, "fresh"))).rejects.toThrow();
    // And forward again.
    await snapshots.restore(project, after, await snapshots.changed(project, before, after));
    expect(tree()).toEqual({ "a.txt": "edited\n", "fresh/deep/new.txt": "new\n" });
  });

  it("restores a file rewritten with the same size in the same second as the snapshot that last saw it (racy git)", async () => {
    // Git trusts an index entry whose size, inode and times (to the second) match the file,
    // unless the entry is as new as the index file itself. A restore copies the index: the
    // copy must keep the index's time, or a file changed in that second counts as unchanged.
    const file = path.join(project.directory, "b.txt");
    const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
    await write("b.txt", "keep\n");
    const keep = await snapshots.track(project);
    await nextSecond();
    await write("b.txt", "kept\n");
    const seen = await fs.stat(file);
    const kept = await snapshots.track(project);
    await snapshots.restore(project, keep, ["b.txt"]);
    await fs.utimes(file, seen.atime, seen.mtime);
    expect(await fs.readFile(file, "utf8")).toBe("keep\n");
    await nextSecond();
    await snapshots.restore(project, kept, ["b.txt"]);
    expect(await fs.readFile(file, "utf8")).toBe("kept\n");
  });

  it("leaves a git repository's own .git byte-identical", async () => {
    execFileSync("git", ["init", "-q", project.directory]);
    await write("a.txt", "one\n");
    execFileSync("git", ["-C", project.directory, "-c", "user.name=t", "-c", "user.email=t@t", "add", "a.txt"]);
    execFileSync("git", ["-C", project.directory, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first"]);
    const gitBefore = digest(path.join(project.directory, ".git"));
    const first = await snapshots.track(project);
    await write("a.txt", "two\n");
    await write("b.txt", "b\n");
    const second = await snapshots.track(project);
    await snapshots.restore(project, first, await snapshots.changed(project, first, second));
    expect(tree()).toEqual({ "a.txt": "one\n" });
    expect(digest(path.join(project.directory, ".git"))).toBe(gitBefore);
  });

  it("refuses to restore a path outside the project, never deletes or writes through a link out of it, and never deletes a large file", async () => {
    const outside = path.join(dir, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "victim.txt"), "keep me\n");
    await fs.symlink(outside, path.join(project.directory, "escape"));
    const hash = await snapshots.track(project);
    await expect(snapshots.restore(project, hash, ["../outside/victim.txt"])).rejects.toThrow(/outside the project/);
    // Not in the snapshot, so a deletion: below a link, the file is not the project's and stays.
    await snapshots.restore(project, hash, ["escape/victim.txt"]);
    expect(readFileSync(path.join(outside, "victim.txt"), "utf8")).toBe("keep me\n");
    expect(readdirSync(outside)).toEqual(["victim.txt"]);
    await write("huge.bin", "y".repeat(4096));
    await snapshots.restore(project, hash, ["huge.bin"]);
    expect(statSync(path.join(project.directory, "huge.bin")).size).toBe(4096);
  });

  it("says when the project directory does not exist", async () => {
    await expect(snapshots.track({ id: "prj_gone", directory: path.join(dir, "gone") })).rejects.toBeInstanceOf(ProjectMissingError);
  });

  it("says clearly when git is missing, and refuses to work", async () => {
    const none = new Snapshots({ root: path.join(dir, "data", "snapshot"), pathVariable: path.join(dir, "empty-bin") });
    expect(none.available).toBe(false);
    expect(none.describe()).toMatch(/snapshots are OFF — git is not installed \(Debian\/Ubuntu: apt-get install -y git\)/);
    await expect(none.track(project)).rejects.toBeInstanceOf(SnapshotUnavailableError);
  });

  it("takes one operation at a time per project: concurrent snapshots all succeed with the same tree", async () => {
    for (let i = 0; i < 50; i++) await write(`f${i}.txt`, `${i}\n`);
    const hashes = await Promise.all(Array.from({ length: 8 }, () => snapshots.track(project)));
    expect(new Set(hashes).size).toBe(1);
  });

  it("after a process is killed (SIGKILL) in the middle of a snapshot of a large tree, the next snapshot works", async () => {
    for (let d = 0; d < 40; d++) {
      await fs.mkdir(path.join(project.directory, `d${d}`));
      await Promise.all(Array.from({ length: 100 }, (_, f) => fs.writeFile(path.join(project.directory, `d${d}`, `f${f}.txt`), `${d}/${f}\n`.repeat(50))));
    }
    const root = path.join(dir, "data", "snapshot");
    const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "../../test/snapshot-track-child.ts"), root, project.id, project.directory], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    // Kill it once git is at work on its private index.
    const gitDir = path.join(root, project.id);
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        const busy = existsSync(gitDir) && readdirSync(gitDir).some((name) => name.startsWith("index.parley-"));
        if (busy) {
          clearInterval(poll);
          child.kill("SIGKILL");
          resolve();
        } else if (Date.now() - started > 20_000) {
          clearInterval(poll);
          reject(new Error("the child never started its snapshot"));
        }
      }, 2);
    });
    await new Promise((resolve) => child.once("close", resolve));
    const again = new Snapshots({ root, maxFileBytes: 1024 });
    const hash = await again.track(project);
    const fresh = new Snapshots({ root: path.join(dir, "fresh-store"), maxFileBytes: 1024 });
    expect(hash).toBe(await fresh.track(project));
    await write("d0/f0.txt", "changed\n");
    expect(await again.changed(project, hash, await again.track(project))).toEqual(["d0/f0.txt"]);
  });

  it("N9: a folder replaced by a symlink leaves its files out of later snapshots instead of failing them, and a revert works", async () => {
    await write("dd/f", "inside\n");
    await write("other/g", "g\n");
    const first = await snapshots.track(project);
    await fs.rm(path.join(project.directory, "dd"), { recursive: true });
    await fs.symlink("other", path.join(project.directory, "dd"));
    const second = await snapshots.track(project);
    expect(await snapshots.changed(project, first, second)).toEqual(["dd", "dd/f"]);
    await write("other/h", "h\n");
    const third = await snapshots.track(project);
    expect(await snapshots.changed(project, second, third)).toEqual(["other/h"]);
    // Back to the first: the link goes, the folder and its file return; other/ is untouched.
    await snapshots.restore(project, first, await snapshots.changed(project, first, second));
    expect(tree()).toEqual({ "dd/f": "inside\n", "other/g": "g\n", "other/h": "h\n" });
    expect((await fs.lstat(path.join(project.directory, "dd"))).isDirectory()).toBe(true);
  });

  it("N4: a folder swapped for a link to an outside folder while a restore runs (between its checks and its deletions) loses nothing there", async () => {
    const outside = path.join(dir, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "canary.txt"), "canary\n");
    const work = path.join(project.directory, "work");
    // Each git call of a restore is the moment another process swaps work/ for a link.
    let swap = false;
    const helper = programHelper();
    const swapping: ProgramRunner = {
      run: async (request) => {
        const result = await helper.run(request);
        if (swap && request.args.includes("ls-tree")) {
          await fs.rename(work, path.join(project.directory, "work-real"));
          await fs.symlink(outside, work);
        }
        return result;
      },
    };
    const racing = new Snapshots({ root: path.join(dir, "data", "snapshot"), maxFileBytes: 1024, runner: swapping });
    const before = await racing.track(project);
    await write("work/canary.txt", "made by the step\n");
    const after = await racing.track(project);
    swap = true;
    await racing.restore(project, before, await racing.changed(project, before, after));
    expect(readFileSync(path.join(outside, "canary.txt"), "utf8")).toBe("canary\n");
    // What the step made was moved away by the other process, not deleted through the link.
    expect(readFileSync(path.join(project.directory, "work-real", "canary.txt"), "utf8")).toBe("made by the step\n");
  });

  it("N4: a restore racing a folder swapped for a link to an outside folder never deletes or writes there", async () => {
    const outside = path.join(dir, "outside");
    await fs.mkdir(outside);
    for (let i = 0; i < 20; i++) await fs.writeFile(path.join(outside, `f${i}.txt`), "canary\n");
    const before = await snapshots.track(project);
    // Files a step created in a folder (so a restore deletes them), and one it changed.
    for (let i = 0; i < 20; i++) await write(`work/f${i}.txt`, "made by the step\n");
    await write("work/keep.txt", "");
    const after = await snapshots.track(project);
    const files = await snapshots.changed(project, before, after);
    const work = path.join(project.directory, "work");
    const moved = path.join(project.directory, "work-real");
    let swapping = true;
    const swaps = (async () => {
      // Swap work/ for a link to the outside folder and back, as fast as possible (a step
      // of the swap may fail when the restore just changed the same names: it goes on).
      while (swapping) {
        await fs.rename(work, moved).catch(() => undefined);
        await fs.symlink(outside, work).catch(() => undefined);
        await new Promise((resolve) => setImmediate(resolve));
        await fs.unlink(work).catch(() => undefined);
        await fs.rename(moved, work).catch(() => undefined);
      }
    })();
    // Under such a race a restore may fail on a path that changes under it (a folder it
    // opened removed by the other process, say): safe either way, and counted.
    let restored = 0;
    const attempt = (hash: string) => snapshots.restore(project, hash, files).then(() => restored++, (error: unknown) => String(error));
    for (let round = 0; round < 10; round++) {
      await attempt(before);
      await attempt(after);
    }
    swapping = false;
    await swaps;
    expect(readdirSync(outside).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `f${i}.txt`).sort());
    for (let i = 0; i < 20; i++) expect(readFileSync(path.join(outside, `f${i}.txt`), "utf8")).toBe("canary\n");
    expect(restored).toBeGreaterThan(0);
    // Once the swapping stops, a restore works as ever (what the other process moved away is its own).
    if ((await fs.lstat(work).catch(() => undefined /* no work/ at all */))?.isSymbolicLink()) await fs.unlink(work);
    await fs.rm(moved, { recursive: true, force: true });
    await snapshots.restore(project, before, files);
    expect(tree()).toEqual({});
  });
});
