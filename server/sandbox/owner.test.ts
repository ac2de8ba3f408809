import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { adoptTree, owns } from "./owner";

/**
 * Giving a workspace to the sandbox's user (the server runs as root here): the tree's root
 * is given last, so the sandbox — which starts the user's processes in a tree only once
 * `owns(root)` — never lets one run beside a walk that is not over (such a process could
 * swap a folder for a link to /etc under the walk).
 */

const OWNER = { uid: 65500, gid: 65500 };
let base: string;
afterEach(async () => {
  vi.restoreAllMocks();
  await fs.rm(base, { recursive: true, force: true });
});

describe("adoptTree", () => {
  it("gives everything below the root first and the root last; links are changed themselves, never followed; a hard-linked file keeps its owner", async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "parley-owner-")));
    const root = path.join(base, "project");
    await fs.mkdir(path.join(root, "a", "b"), { recursive: true });
    await fs.writeFile(path.join(root, "a", "b", "f.txt"), "x");
    const outside = path.join(base, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "keep.txt"), "x");
    await fs.symlink(outside, path.join(root, "link"));
    // A hard link to a file elsewhere: the file keeps its owner (it may lie outside the tree).
    await fs.writeFile(path.join(outside, "linked.txt"), "x");
    await fs.link(path.join(outside, "linked.txt"), path.join(root, "hard.txt"));
    // While anything below is still being given, the root is not the owner's yet.
    const original = fs.lchown.bind(fs);
    const early: string[] = [];
    vi.spyOn(fs, "lchown").mockImplementation(async (target, uid, gid) => {
      if (await owns(OWNER, root)) early.push(String(target));
      return original(target, uid, gid);
    });
    expect(await owns(OWNER, root)).toBe(false);
    await adoptTree(OWNER, root);
    expect(early).toEqual([]);
    expect(await owns(OWNER, root)).toBe(true);
    for (const entry of ["a", "a/b", "a/b/f.txt", "link"]) expect((await fs.lstat(path.join(root, entry))).uid, entry).toBe(OWNER.uid);
    expect((await fs.stat(path.join(outside, "keep.txt"))).uid).toBe(0);
    expect((await fs.stat(path.join(outside, "linked.txt"))).uid).toBe(0);
  });
});
