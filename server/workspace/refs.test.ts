import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BaseCache, BaseFolders, FixedReads } from "./base-cache";
import { knownCommit, readHead, readRef, rememberCommit } from "./refs";

const root = mkdtempSync(path.join(os.tmpdir(), "parley-refs-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, { cwd: dir, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } }).trim();

function repository(name: string): { dir: string; gitDir: string; head: string } {
  const dir = path.join(root, name);
  mkdirSync(dir);
  git(dir, "init", "--quiet", "--initial-branch=main");
  writeFileSync(path.join(dir, "a.txt"), "a\n");
  git(dir, "add", "a.txt");
  git(dir, "commit", "--quiet", "-m", "first");
  return { dir, gitDir: path.join(dir, ".git"), head: git(dir, "rev-parse", "HEAD") };
}

describe("refs read without git (refs.ts)", () => {
  it("reads a loose ref and a packed one as git does; a missing ref is null", async () => {
    const { dir, gitDir, head } = repository("plain");
    expect(await readRef(gitDir, "refs/heads/main")).toBe(head);
    expect(await readRef(gitDir, "refs/remotes/origin/main")).toBeNull();
    git(dir, "branch", "packed");
    git(dir, "pack-refs", "--all");
    expect(await readRef(gitDir, "refs/heads/packed")).toBe(head);
    expect(await readRef(gitDir, "refs/heads/main")).toBe(head);
    expect(await readRef(gitDir, "refs/heads/other")).toBeNull();
    // A folder where the ref's folder would be a file: no such ref.
    expect(await readRef(gitDir, "refs/heads/main/deeper")).toBeNull();
  });

  it("leaves to git what it cannot be sure of: a symbolic ref, a link, a FIFO (without blocking), a reftable, a strange name", async () => {
    const { dir, gitDir } = repository("odd");
    git(dir, "symbolic-ref", "refs/heads/alias", "refs/heads/main");
    expect(await readRef(gitDir, "refs/heads/alias")).toBeUndefined();
    symlinkSync("/etc/hostname", path.join(gitDir, "refs/heads/linked"));
    expect(await readRef(gitDir, "refs/heads/linked")).toBeUndefined();
    execFileSync("mkfifo", [path.join(gitDir, "refs/heads/fifo")]);
    expect(await readRef(gitDir, "refs/heads/fifo")).toBeUndefined();
    expect(await readRef(gitDir, "refs/heads/../../config")).toBeUndefined();
    expect(await readRef(gitDir, "HEAD")).toBeUndefined();
    mkdirSync(path.join(gitDir, "reftable"));
    expect(await readRef(gitDir, "refs/heads/main")).toBeUndefined();
  });

  it("reads HEAD through the branch it names, or detached; an unborn branch, a link or a FIFO as HEAD is left to git", async () => {
    const { dir, gitDir, head } = repository("head");
    expect(await readHead(gitDir)).toBe(head);
    git(dir, "pack-refs", "--all");
    expect(await readHead(gitDir)).toBe(head);
    git(dir, "checkout", "--quiet", "--detach");
    expect(await readHead(gitDir)).toBe(head);
    git(dir, "checkout", "--quiet", "--orphan", "unborn");
    expect(await readHead(gitDir)).toBeUndefined();
    const linked = repository("head-linked");
    rmSync(path.join(linked.gitDir, "HEAD"));
    symlinkSync(path.join(gitDir, "HEAD"), path.join(linked.gitDir, "HEAD"));
    expect(await readHead(linked.gitDir)).toBeUndefined();
    const fifo = repository("head-fifo");
    rmSync(path.join(fifo.gitDir, "HEAD"));
    execFileSync("mkfifo", [path.join(fifo.gitDir, "HEAD")]);
    expect(await readHead(fifo.gitDir)).toBeUndefined();
  });

  it("remembers which ids git named commits, per object folder", () => {
    rememberCommit("/objects/a", "1".repeat(40));
    expect(knownCommit("/objects/a", "1".repeat(40))).toBe(true);
    expect(knownCommit("/objects/b", "1".repeat(40))).toBe(false);
    expect(knownCommit("/objects/a", "2".repeat(40))).toBe(false);
  });
});

describe("BaseCache", () => {
  it("reads a listing and a file once; a large file is read each time; the bytes kept are bounded", async () => {
    const cache = new BaseCache();
    let reads = 0;
    const listing = () => {
      reads++;
      return Promise.resolve(["a", "b"]);
    };
    expect(await cache.listing("k", listing)).toEqual(["a", "b"]);
    expect(await cache.listing("k", listing)).toEqual(["a", "b"]);
    expect(reads).toBe(1);
    let blobReads = 0;
    const small = () => {
      blobReads++;
      return Promise.resolve(Buffer.from("rule"));
    };
    await cache.blob("s", small);
    await cache.blob("s", small);
    expect(blobReads).toBe(1);
    const large = () => {
      blobReads++;
      return Promise.resolve(Buffer.alloc(300 * 1024));
    };
    await cache.blob("l", large);
    await cache.blob("l", large);
    expect(blobReads).toBe(3);
    // 40 files of 250 kB: at most 8 MB kept, the oldest gone first.
    for (let i = 0; i < 40; i++) await cache.blob(`f${i}`, () => Promise.resolve(Buffer.alloc(250 * 1024)));
    let again = 0;
    await cache.blob("f0", () => {
      again++;
      return Promise.resolve(Buffer.alloc(250 * 1024));
    });
    await cache.blob("f39", () => {
      again++;
      return Promise.resolve(Buffer.alloc(250 * 1024));
    });
    expect(again).toBe(1);
  });
});

describe("BaseFolders", () => {
  it("makes a key's folder once and shares it; removes folders beyond the cap only when no reader uses them; keeps no failed folder", async () => {
    const folders = new BaseFolders();
    const made: string[] = [];
    const removed: string[] = [];
    const make = (name: string) => () => {
      made.push(name);
      return Promise.resolve(`/f/${name}`);
    };
    const remove = (dir: string) => {
      removed.push(dir);
      return Promise.resolve();
    };
    const first = await folders.use("a", make("a"), remove);
    const again = await folders.use("a", make("a"), remove);
    expect([first.dir, again.dir, made]).toEqual(["/f/a", "/f/a", ["a"]]);
    // Sixteen more keys: "a" is the least recently used, but still read.
    for (let i = 0; i < 16; i++) await (await folders.use(`k${i}`, make(`k${i}`), remove)).release();
    expect(removed).toEqual(["/f/k0"]);
    await first.release();
    await first.release();
    expect(removed).toEqual(["/f/k0"]);
    await again.release();
    expect(removed).toEqual(["/f/k0"]);
    // One more key: now "a", unused and the least recently used, goes.
    await (await folders.use("k16", make("k16"), remove)).release();
    expect(removed).toEqual(["/f/k0", "/f/a"]);
    // A failed make is not kept: the next use makes it again.
    await expect(folders.use("bad", () => Promise.reject(new Error("disk full")), remove)).rejects.toThrow("disk full");
    expect((await folders.use("bad", make("bad"), remove)).dir).toBe("/f/bad");
  });
});

describe("FixedReads", () => {
  it("reads a key once, keeps at most its bound (the oldest go), and keeps no failed read", async () => {
    const reads = new FixedReads<string>(2);
    let count = 0;
    const read = (value: string) => () => {
      count++;
      return Promise.resolve(value);
    };
    expect(await reads.get("a", read("A"))).toBe("A");
    expect(await reads.get("a", read("other"))).toBe("A");
    expect(count).toBe(1);
    await reads.get("b", read("B"));
    await reads.get("c", read("C"));
    expect(await reads.get("a", read("A again"))).toBe("A again");
    await expect(reads.get("bad", () => Promise.reject(new Error("gone")))).rejects.toThrow("gone");
    expect(await reads.get("bad", read("made"))).toBe("made");
  });
});
