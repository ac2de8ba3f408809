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
  it("gives everything below the root first and the root last; links are changed themselves, never followed", async () => {
    base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "parley-owner-")));
    const root = path.join(base, "project");
    await fs.mkdir(path.join(root, "a", "b"), { recursive: true });
    await fs.writeFile(path.join(root, "a", "b", "f.txt"), "x");
    const outside = path.join(base, "outside");
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, "keep.txt"), "x");
    await fs.symlink(outside, path.join(root, "link"));
    const lchown = vi.spyOn(fs, "lchown");
    expect(await owns(OWNER, root)).toBe(false);
    await adoptTree(OWNER, root);
    const order = lchown.mock.calls.map(([p]) => path.relative(root, String(p)));
    expect(order.at(-1)).toBe("");
    expect(new Set(order)).toEqual(new Set(["", "a", "link", "a/b", "a/b/f.txt"]));
    expect(await owns(OWNER, root)).toBe(true);
    expect((await fs.lstat(path.join(root, "link"))).uid).toBe(OWNER.uid);
    expect((await fs.stat(path.join(outside, "keep.txt"))).uid).toBe(0);
  });
});
