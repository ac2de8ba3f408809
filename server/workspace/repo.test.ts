import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isParleyError } from "../errors";
import { type ProgramRequest, type ProgramRunner, programHelper } from "../process/helper";
import { ProjectGit } from "../project/git";
import { type GitServer, createBareRepo, git, gitAsync, startGitServer } from "../../test/git-server";
import { EMPTY_TREE, MERGED_PREFIX, WorkspaceRepo, removeWorkTree } from "./repo";

/**
 * The git plumbing of session workspaces against real git in temporary folders: each
 * operation, its failure and conflict paths (which change nothing), and hostile working
 * trees and project folders (planted filters, a `.git` that points elsewhere, links out).
 */

const MEMBER = { name: "Mia Member", email: "mia@team.test" };
const TOKEN = "glpat-Wk3Lz8Qp5Vn2Rt7Yx1Cb";

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "parley-wsrepo-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A project folder: a repository with `files` committed on main. */
function makeProject(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  writeFiles(dir, files);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "Initial");
  return git(dir, "rev-parse", "HEAD").trim();
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
}

/** Commits `files` (null: deleted) on the project's checked-out branch. */
function commitInProject(project: string, files: Record<string, string | null>, message = "Change"): string {
  for (const [name, content] of Object.entries(files)) {
    if (content === null) rmSync(path.join(project, name));
    else writeFiles(project, { [name]: content });
  }
  git(project, "add", "-A");
  git(project, "commit", "-q", "-m", message);
  return git(project, "rev-parse", "HEAD").trim();
}

/** Every ref of a repository with its value. */
function refs(gitDir: string): string {
  return git(gitDir, "--git-dir", gitDir, "for-each-ref", "--format=%(refname) %(objectname)");
}

/** git on the store, seeing the private objects of its workspaces too (what the server reads). */
function storeGit(store: string, ...args: string[]): string {
  const folder = path.join(store, "parley-workspaces");
  const privateObjects = existsSync(folder) ? readdirSync(folder).map((name) => path.join(folder, name, "objects")) : [];
  return execFileSync("git", ["--git-dir", store, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: store, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_ALTERNATE_OBJECT_DIRECTORIES: privateObjects.join(":") },
  });
}

/** A runner that fails the git command `failing` names and runs every other one. */
function failOn(failing: string): ProgramRunner {
  const real = programHelper();
  return {
    run(request: ProgramRequest) {
      if (request.args.includes(failing)) return Promise.resolve({ code: 128, signal: null, stdout: Buffer.alloc(0), stderr: Buffer.from(`fatal: ${failing} made to fail`) });
      return real.run(request);
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isParleyError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a rejection");
}

interface Setup {
  dir: string;
  dataDir: string;
  project: string;
  store: string;
  base: string;
  repo: WorkspaceRepo;
  workTree: string;
}

let counter = 0;
async function setup(files: Record<string, string> = { "README.md": "# Shop\n", "src/math.ts": "export const one = 1;\n" }, runner?: ProgramRunner): Promise<Setup> {
  const dir = path.join(root, `t${++counter}`);
  const project = path.join(dir, "project");
  const base = makeProject(project, files);
  const dataDir = path.join(dir, "data");
  mkdirSync(dataDir, { recursive: true });
  const store = path.join(dataDir, "workspaces", "p1", "store.git");
  const repo = new WorkspaceRepo(new ProjectGit(dataDir, runner));
  await repo.ensureStore(store, path.join(project, ".git"));
  return { dir, dataDir, project, store, base, repo, workTree: path.join(dataDir, "workspaces", "p1", "w1") };
}

async function withWorkTree(files?: Record<string, string>): Promise<Setup> {
  const s = await setup(files);
  await s.repo.createWorkTree(s.store, s.workTree, { branch: "parley/fix-w1", base: s.base, workspace: "w1" });
  return s;
}

describe("the store and the base", () => {
  it("ensureStore makes a bare repository borrowing the project's objects, and is idempotent", async () => {
    const s = await setup();
    await s.repo.ensureStore(s.store, path.join(s.project, ".git"));
    expect(git(s.store, "--git-dir", s.store, "rev-parse", "--is-bare-repository").trim()).toBe("true");
    expect(readFileSync(path.join(s.store, "objects", "info", "alternates"), "utf8")).toBe(`${path.join(s.project, ".git", "objects")}\n`);
    expect(git(s.store, "--git-dir", s.store, "cat-file", "-t", s.base).trim()).toBe("commit");
  });

  it("resolveBase prefers origin/<branch>, falls back to the local branch, and names a missing one", async () => {
    const s = await setup();
    expect(await s.repo.resolveBase(s.project, "main")).toBe(s.base);
    const other = commitInProject(s.project, { "b.txt": "b\n" });
    git(s.project, "update-ref", "refs/remotes/origin/main", s.base);
    expect(other).not.toBe(s.base);
    expect(await s.repo.resolveBase(s.project, "main")).toBe(s.base);
    const missing = await rejection(s.repo.resolveBase(s.project, "nope"));
    expect(missing.code).toBe("INVALID");
    expect(missing.message).toContain("nope");
    expect((await rejection(s.repo.resolveBase(s.project, "--upload-pack=touch"))).code).toBe("INVALID");
  });
});

describe("creating a working tree", () => {
  it("checks out the base on the session branch, in a repository of its own that borrows the store's objects", async () => {
    const s = await withWorkTree();
    expect(readFileSync(path.join(s.workTree, "src/math.ts"), "utf8")).toBe("export const one = 1;\n");
    expect(git(s.workTree, "symbolic-ref", "HEAD").trim()).toBe("refs/heads/parley/fix-w1");
    expect(git(s.workTree, "rev-parse", "HEAD").trim()).toBe(s.base);
    expect(git(s.workTree, "status", "--porcelain")).toBe("");
    expect(readFileSync(path.join(s.workTree, ".git", "objects", "info", "alternates"), "utf8")).toBe(`${path.join(s.store, "objects")}\n`);
    expect(refs(s.store)).toContain(`refs/heads/parley/fix-w1 ${s.base}`);
    // The clone has no remote and no credential.
    expect(git(s.workTree, "remote", "-v")).toBe("");
  });

  it("an existing branch is a CONFLICT and leaves no folder; an existing folder is a CONFLICT and is left as it was", async () => {
    const s = await withWorkTree();
    const other = path.join(path.dirname(s.workTree), "w2");
    const taken = await rejection(s.repo.createWorkTree(s.store, other, { branch: "parley/fix-w1", base: s.base }));
    expect(taken.code).toBe("CONFLICT");
    expect(existsSync(other)).toBe(false);
    mkdirSync(other);
    writeFileSync(path.join(other, "mine.txt"), "keep\n");
    const exists = await rejection(s.repo.createWorkTree(s.store, other, { branch: "parley/new-w2", base: s.base }));
    expect(exists.code).toBe("CONFLICT");
    expect(readdirSync(other)).toEqual(["mine.txt"]);
    expect(refs(s.store)).not.toContain("parley/new-w2");
    const unknown = await rejection(s.repo.createWorkTree(s.store, path.join(path.dirname(s.workTree), "w3"), { branch: "parley/w3", base: "1".repeat(40) }));
    expect(unknown.code).toBe("INVALID");
    expect(existsSync(path.join(path.dirname(s.workTree), "w3"))).toBe(false);
  });

  it("a checkout that fails leaves neither the folder nor the branch", async () => {
    const s = await setup(undefined, failOn("read-tree"));
    const failed = await rejection(s.repo.createWorkTree(s.store, s.workTree, { branch: "parley/broken", base: s.base }));
    expect(failed.message).toContain("read-tree made to fail");
    expect(existsSync(s.workTree)).toBe(false);
    expect(refs(s.store)).not.toContain("parley/broken");
  });
});

describe("the working tree's tree", () => {
  it("honours .gitignore, stores links as links, never reads a file through a linked folder", async () => {
    const s = await withWorkTree({ "README.md": "# Shop\n", "sub/inner.txt": "inner\n", ".gitignore": "*.log\n" });
    const outside = path.join(s.dir, "outside");
    mkdirSync(outside);
    writeFileSync(path.join(outside, "inner.txt"), "SECRET outside\n");
    writeFileSync(path.join(s.workTree, "debug.log"), "ignored\n");
    writeFileSync(path.join(s.workTree, "new.txt"), "new\n");
    symlinkSync("/etc/hostname", path.join(s.workTree, "host-link"));
    // A folder that the index knows replaced by a link to a folder outside with a file of the same name.
    rmSync(path.join(s.workTree, "sub"), { recursive: true });
    symlinkSync(outside, path.join(s.workTree, "sub"));
    const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1", s.base);
    const listing = storeGit(s.store, "ls-tree", "-r", tree);
    expect(listing).toContain("new.txt");
    expect(listing).not.toContain("debug.log");
    expect(listing).toMatch(/^120000 blob \w+\thost-link$/m);
    expect(listing).toMatch(/^120000 blob \w+\tsub$/m);
    expect(listing).not.toContain("sub/inner.txt");
    expect(storeGit(s.store, "cat-file", "-p", `${tree}:sub`)).toBe(outside);
    for (const line of listing.trim().split("\n")) {
      const id = line.split(/\s+/)[2] ?? "";
      expect(storeGit(s.store, "cat-file", "-p", id)).not.toContain("SECRET");
    }
  }, 30_000);

  it("files of the base that .gitignore matches stay, unchanged files give the base's tree, no size limit", async () => {
    const s = await setup({ "README.md": "x\n" });
    writeFiles(s.project, { "kept.log": "tracked though ignored\n", ".gitignore": "*.log\n" });
    const base = commitInProject(s.project, {});
    await s.repo.createWorkTree(s.store, s.workTree, { branch: "parley/a", base });
    expect(await s.repo.workTreeTree(s.store, s.workTree, "w1", base)).toBe(await s.repo.treeOf(s.store, base));
    writeFileSync(path.join(s.workTree, "big.bin"), randomBytes(3 * 1024 * 1024));
    const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1", base);
    expect(storeGit(s.store, "cat-file", "-s", `${tree}:big.bin`).trim()).toBe(String(3 * 1024 * 1024));
  });

  it("a .git replaced by a gitdir file or a link to the project changes nothing the server does", async () => {
    for (const kind of ["file", "link"] as const) {
      const s = await withWorkTree();
      const projectRefs = refs(path.join(s.project, ".git"));
      rmSync(path.join(s.workTree, ".git"), { recursive: true });
      if (kind === "file") writeFileSync(path.join(s.workTree, ".git"), `gitdir: ${path.join(s.project, ".git")}\n`);
      else symlinkSync(path.join(s.project, ".git"), path.join(s.workTree, ".git"));
      writeFileSync(path.join(s.workTree, "README.md"), "# Changed\n");
      const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1", s.base);
      expect(storeGit(s.store, "ls-tree", "--name-only", tree).split("\n")).not.toContain(".git");
      const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree, message: "Change", author: MEMBER, workspace: "w1" });
      expect(storeGit(s.store, "show", `${tip}:README.md`)).toBe("# Changed\n");
      expect(refs(path.join(s.project, ".git"))).toBe(projectRefs);
      expect(git(s.project, "status", "--porcelain")).toBe("");
    }
  });

  it("uncommitted files stay out of the objects every working tree can read, until they are committed", async () => {
    const s = await withWorkTree();
    const second = path.join(path.dirname(s.workTree), "w2");
    await s.repo.createWorkTree(s.store, second, { branch: "parley/other-w2", base: s.base, workspace: "w2" });
    writeFileSync(path.join(s.workTree, "draft.txt"), "uncommitted draft of session one\n");
    const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const draft = git(s.dir, "hash-object", path.join(s.workTree, "draft.txt")).trim();
    // The other session's clone (its alternates reach the store) cannot read the draft, nor the tree.
    expect(() => git(second, "cat-file", "-e", draft)).toThrow();
    expect(() => git(second, "cat-file", "-e", tree)).toThrow();
    expect(() => git(s.store, "--git-dir", s.store, "cat-file", "-e", draft)).toThrow();
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree, message: "Draft", author: MEMBER, workspace: "w1" });
    // Committed: the branch is complete in the store (the clones see the team's branches).
    expect(git(second, "cat-file", "-p", `${tip}:draft.txt`)).toBe("uncommitted draft of session one\n");
    expect(storeGit(s.store, "fsck", "--no-dangling", "--connectivity-only").trim()).toBe("");
    await s.repo.forgetWorkspace(s.store, "w1");
    expect(existsSync(path.join(s.store, "parley-workspaces", "w1"))).toBe(false);
  });

  it("working trees read at the same time each get their own tree", async () => {
    const s = await withWorkTree();
    const second = path.join(path.dirname(s.workTree), "w2");
    await s.repo.createWorkTree(s.store, second, { branch: "parley/other-w2", base: s.base, workspace: "w2" });
    writeFileSync(path.join(s.workTree, "one.txt"), "1\n");
    writeFileSync(path.join(second, "two.txt"), "2\n");
    const [a, b] = await Promise.all([s.repo.workTreeTree(s.store, s.workTree, "w1"), s.repo.workTreeTree(s.store, second, "w2")]);
    expect(storeGit(s.store, "ls-tree", "--name-only", a)).toContain("one.txt");
    expect(storeGit(s.store, "ls-tree", "--name-only", a)).not.toContain("two.txt");
    expect(storeGit(s.store, "ls-tree", "--name-only", b)).toContain("two.txt");
    expect(storeGit(s.store, "ls-tree", "--name-only", b)).not.toContain("one.txt");
  });
});

describe("diff and commit", () => {
  it("diff lists every file with its lines and status, and truncates only the text", async () => {
    const s = await withWorkTree();
    writeFileSync(path.join(s.workTree, "src/math.ts"), "export const one = 1;\nexport const two = 2;\n");
    rmSync(path.join(s.workTree, "README.md"));
    writeFileSync(path.join(s.workTree, "new.txt"), "a\nb\n");
    writeFileSync(path.join(s.workTree, "data.bin"), Buffer.from([0, 1, 2, 0, 255]));
    const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const full = await s.repo.diff(s.store, s.base, tree, { maxBytes: 1_000_000, workspace: "w1" });
    expect(full.truncated).toBe(false);
    expect(full.text).toContain("+export const two = 2;");
    expect(full.files).toEqual([
      { file: "README.md", additions: 0, deletions: 1, status: "deleted" },
      { file: "data.bin", additions: 0, deletions: 0, status: "added" },
      { file: "new.txt", additions: 2, deletions: 0, status: "added" },
      { file: "src/math.ts", additions: 1, deletions: 0, status: "modified" },
    ]);
    const short = await s.repo.diff(s.store, s.base, tree, { maxBytes: 40, workspace: "w1" });
    expect(short.truncated).toBe(true);
    expect(Buffer.byteLength(short.text)).toBeLessThanOrEqual(40);
    expect(short.files).toEqual(full.files);
    expect((await s.repo.diff(s.store, EMPTY_TREE, tree, { maxBytes: 1000, workspace: "w1" })).files.map((f) => `${f.file} ${f.status}`)).toEqual(["data.bin added", "new.txt added", "src/math.ts added"]);
  });

  it("commit makes the member the author and Parley the committer; a moved branch is a CONFLICT, the same tree INVALID, nothing changed", async () => {
    const s = await withWorkTree();
    writeFileSync(path.join(s.workTree, "README.md"), "# Shop, better\n");
    const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree, message: "Better readme", author: MEMBER, workspace: "w1" });
    expect(git(s.store, "--git-dir", s.store, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%P|%s", tip).trim()).toBe(`Mia Member <mia@team.test>|Parley <parley@localhost>|${s.base}|Better readme`);
    expect(refs(s.store)).toContain(`refs/heads/parley/fix-w1 ${tip}`);
    const before = refs(s.store);
    writeFileSync(path.join(s.workTree, "README.md"), "# Shop, again\n");
    const second = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const moved = await rejection(s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree: second, message: "Again", author: MEMBER, workspace: "w1" }));
    expect(moved.code).toBe("CONFLICT");
    // Nothing of the refused commit reached the objects the other working trees read.
    const again = git(s.dir, "hash-object", path.join(s.workTree, "README.md")).trim();
    expect(() => git(s.store, "--git-dir", s.store, "cat-file", "-e", again)).toThrow();
    const same = await rejection(s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: tip, tree, message: "Same", author: MEMBER, workspace: "w1" }));
    expect(same.code).toBe("INVALID");
    expect(same.message).toMatch(/nothing to commit/i);
    expect(refs(s.store)).toBe(before);
  });
});

describe("update from base", () => {
  it("is up to date when the base is already in the branch", async () => {
    const s = await withWorkTree();
    const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    expect(await s.repo.updateFromBase(s.store, { branch: "parley/fix-w1", tip: s.base, base: s.base, workTree: tree, dir: s.workTree, author: MEMBER, workspace: "w1" })).toEqual({ kind: "up-to-date", tip: s.base });
  });

  it("fast-forwards a branch without commits or changes, writing only the changed files", async () => {
    const s = await withWorkTree();
    const next = commitInProject(s.project, { "src/math.ts": "export const one = 1; // base\n", "added.txt": "from base\n", "README.md": null });
    const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const result = await s.repo.updateFromBase(s.store, { branch: "parley/fix-w1", tip: s.base, base: next, workTree: tree, dir: s.workTree, author: MEMBER, workspace: "w1" });
    expect(result).toMatchObject({ kind: "updated", tip: next, fastForward: true });
    if (result.kind !== "updated") throw new Error("not updated");
    expect(result.changedFiles.sort()).toEqual(["README.md", "added.txt", "src/math.ts"]);
    expect(readFileSync(path.join(s.workTree, "added.txt"), "utf8")).toBe("from base\n");
    expect(existsSync(path.join(s.workTree, "README.md"))).toBe(false);
    expect(result.newWorkTree).toBe(await s.repo.treeOf(s.store, next));
    expect(await s.repo.workTreeTree(s.store, s.workTree, "w1")).toBe(result.newWorkTree);
    expect(refs(s.store)).toContain(`refs/heads/parley/fix-w1 ${next}`);
  });

  it("merges base into a branch with its own commit and carries the uncommitted changes", async () => {
    const s = await withWorkTree({ "a.txt": "a1\na2\na3\n", "b.txt": "b\n", "c.txt": "c\n" });
    writeFileSync(path.join(s.workTree, "a.txt"), "a1 session\na2\na3\n");
    const committed = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree: committed, message: "Session", author: MEMBER, workspace: "w1" });
    writeFileSync(path.join(s.workTree, "c.txt"), "c uncommitted\n");
    const workTree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const next = commitInProject(s.project, { "a.txt": "a1\na2\na3 base\n", "b.txt": "b base\n" });
    const result = await s.repo.updateFromBase(s.store, { branch: "parley/fix-w1", tip, base: next, workTree, dir: s.workTree, author: MEMBER, workspace: "w1" });
    if (result.kind !== "updated") throw new Error(`not updated: ${JSON.stringify(result)}`);
    expect(result.fastForward).toBe(false);
    expect(git(s.store, "--git-dir", s.store, "log", "-1", "--format=%P|%an", result.tip).trim()).toBe(`${tip} ${next}|Mia Member`);
    expect(readFileSync(path.join(s.workTree, "a.txt"), "utf8")).toBe("a1 session\na2\na3 base\n");
    expect(readFileSync(path.join(s.workTree, "b.txt"), "utf8")).toBe("b base\n");
    expect(readFileSync(path.join(s.workTree, "c.txt"), "utf8")).toBe("c uncommitted\n");
    expect(result.changedFiles.sort()).toEqual(["a.txt", "b.txt"]);
    expect(git(s.store, "--git-dir", s.store, "show", `${result.tip}:c.txt`)).toBe("c\n");
    expect(await s.repo.workTreeTree(s.store, s.workTree, "w1")).toBe(result.newWorkTree);
  });

  it("a conflict with the branch or with uncommitted changes names the files and changes nothing", async () => {
    const s = await withWorkTree({ "a.txt": "a\n", "b.txt": "b\n" });
    writeFileSync(path.join(s.workTree, "a.txt"), "a session\n");
    const committed = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree: committed, message: "Session", author: MEMBER, workspace: "w1" });
    writeFileSync(path.join(s.workTree, "b.txt"), "b uncommitted\n");
    const workTree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const before = refs(s.store);
    const onA = commitInProject(s.project, { "a.txt": "a base\n" });
    expect(await s.repo.updateFromBase(s.store, { branch: "parley/fix-w1", tip, base: onA, workTree, dir: s.workTree, author: MEMBER, workspace: "w1" })).toEqual({ kind: "conflict", files: ["a.txt"] });
    git(s.project, "reset", "-q", "--hard", s.base);
    const onB = commitInProject(s.project, { "b.txt": "b base\n" });
    expect(await s.repo.updateFromBase(s.store, { branch: "parley/fix-w1", tip, base: onB, workTree, dir: s.workTree, author: MEMBER, workspace: "w1" })).toEqual({ kind: "conflict", files: ["b.txt"] });
    expect(refs(s.store)).toBe(before);
    expect(readFileSync(path.join(s.workTree, "a.txt"), "utf8")).toBe("a session\n");
    expect(readFileSync(path.join(s.workTree, "b.txt"), "utf8")).toBe("b uncommitted\n");
  });

  it("a file that cannot be written puts back what was written and moves no ref", async () => {
    const s = await withWorkTree({ "a.txt": "a\n" });
    const workTree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const next = commitInProject(s.project, { "a.txt": "a base\n", "z": "a file where the work tree has a folder\n" });
    // An ignored folder stands where base adds a file.
    mkdirSync(path.join(s.workTree, ".git", "info"));
    writeFileSync(path.join(s.workTree, ".git", "info", "exclude"), "z/\n");
    mkdirSync(path.join(s.workTree, "z"));
    writeFileSync(path.join(s.workTree, "z", "keep.txt"), "mine\n");
    const ignored = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    expect(ignored).not.toBe(workTree); // the store does not read the clone's info/exclude
    rmSync(path.join(s.workTree, "z"), { recursive: true });
    writeFileSync(path.join(s.workTree, ".gitignore"), "z/\n");
    const withIgnore = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    mkdirSync(path.join(s.workTree, "z"));
    writeFileSync(path.join(s.workTree, "z", "keep.txt"), "mine\n");
    expect(await s.repo.workTreeTree(s.store, s.workTree, "w1")).toBe(withIgnore);
    const before = refs(s.store);
    const failed = await rejection(s.repo.updateFromBase(s.store, { branch: "parley/fix-w1", tip: s.base, base: next, workTree: withIgnore, dir: s.workTree, author: MEMBER, workspace: "w1" }));
    expect(failed.code).toBe("CONFLICT");
    expect(failed.message).toContain("z");
    expect(readFileSync(path.join(s.workTree, "a.txt"), "utf8")).toBe("a\n");
    expect(readFileSync(path.join(s.workTree, "z", "keep.txt"), "utf8")).toBe("mine\n");
    expect(refs(s.store)).toBe(before);
  });
});

describe("the working tree's own repository", () => {
  it("follows a commit and an update from base: its log shows the branch, its status only what is not committed", async () => {
    const s = await withWorkTree({ "a.txt": "a\n", "b.txt": "b\n" });
    writeFileSync(path.join(s.workTree, "a.txt"), "a session\n");
    writeFileSync(path.join(s.workTree, "new.txt"), "new\n");
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree: await s.repo.workTreeTree(s.store, s.workTree, "w1"), message: "Session", author: MEMBER, workspace: "w1" });
    await s.repo.syncWorkTree(s.store, s.workTree, { branch: "parley/fix-w1", tip, workspace: "w1" });
    expect(git(s.workTree, "rev-parse", "HEAD").trim()).toBe(tip);
    expect(git(s.workTree, "status", "--porcelain")).toBe("");

    writeFileSync(path.join(s.workTree, "b.txt"), "b uncommitted\n");
    writeFileSync(path.join(s.workTree, "draft.txt"), "draft\n");
    const next = commitInProject(s.project, { "c.txt": "from base\n" });
    const workTree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const updated = await s.repo.updateFromBase(s.store, { branch: "parley/fix-w1", tip, base: next, workTree, dir: s.workTree, author: MEMBER, workspace: "w1" });
    if (updated.kind !== "updated") throw new Error(JSON.stringify(updated));
    await s.repo.workTreeTree(s.store, s.workTree, "w1");
    await s.repo.syncWorkTree(s.store, s.workTree, { branch: "parley/fix-w1", tip: updated.tip, workspace: "w1" });
    expect(git(s.workTree, "rev-parse", "HEAD").trim()).toBe(updated.tip);
    expect(git(s.workTree, "status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual([" M b.txt", "?? draft.txt"]);
    expect(readFileSync(path.join(s.workTree, "c.txt"), "utf8")).toBe("from base\n");
  });

  it("a .git/refs swapped for a link: nothing is written through it", async () => {
    const s = await withWorkTree();
    const elsewhere = path.join(s.dir, "elsewhere");
    mkdirSync(elsewhere);
    rmSync(path.join(s.workTree, ".git", "refs"), { recursive: true });
    symlinkSync(elsewhere, path.join(s.workTree, ".git", "refs"));
    writeFileSync(path.join(s.workTree, "README.md"), "changed\n");
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree: await s.repo.workTreeTree(s.store, s.workTree, "w1"), message: "C", author: MEMBER, workspace: "w1" });
    await s.repo.syncWorkTree(s.store, s.workTree, { branch: "parley/fix-w1", tip, workspace: "w1" });
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(lstatSync(path.join(s.workTree, ".git", "refs")).isDirectory()).toBe(true);
  });
});

describe("merging into the project without a remote", () => {
  it("fast-forwards the checked-out branch: ref, index and files follow, and the store records it", async () => {
    const s = await withWorkTree();
    writeFileSync(path.join(s.workTree, "src/math.ts"), "export const one = 1;\nexport const two = 2;\n");
    const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree, message: "Two", author: MEMBER, workspace: "w1" });
    const result = await s.repo.mergeInto(s.store, s.project, { target: "main", tip, author: MEMBER, message: "Merge" });
    expect(result).toEqual({ kind: "merged", target: tip, fastForward: true });
    expect(git(s.project, "rev-parse", "main").trim()).toBe(tip);
    expect(readFileSync(path.join(s.project, "src/math.ts"), "utf8")).toContain("two = 2");
    expect(git(s.project, "status", "--porcelain")).toBe("");
    expect(git(s.project, "fsck", "--no-dangling", "--connectivity-only").trim()).toBe("");
    expect(refs(s.store)).toContain(`${MERGED_PREFIX}main ${tip}`);
    expect(await s.repo.isAncestor(s.store, tip, git(s.store, "--git-dir", s.store, "rev-parse", `${MERGED_PREFIX}main`).trim())).toBe(true);
    expect(await s.repo.mergeInto(s.store, s.project, { target: "main", tip, author: MEMBER, message: "Merge" })).toEqual({ kind: "up-to-date", target: tip });
  });

  it("makes a merge commit when the branch moved on, on a branch that is not checked out too", async () => {
    const s = await withWorkTree({ "a.txt": "a\n", "b.txt": "b\n" });
    writeFileSync(path.join(s.workTree, "a.txt"), "a session\n");
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree: await s.repo.workTreeTree(s.store, s.workTree, "w1"), message: "Session", author: MEMBER, workspace: "w1" });
    const moved = commitInProject(s.project, { "b.txt": "b main\n" });
    git(s.project, "branch", "release", moved);
    const onMain = await s.repo.mergeInto(s.store, s.project, { target: "main", tip, author: MEMBER, message: "Merge session" });
    if (onMain.kind !== "merged") throw new Error(JSON.stringify(onMain));
    expect(onMain.fastForward).toBe(false);
    expect(git(s.project, "log", "-1", "--format=%P|%an|%s", "main").trim()).toBe(`${moved} ${tip}|Mia Member|Merge session`);
    expect(readFileSync(path.join(s.project, "a.txt"), "utf8")).toBe("a session\n");
    expect(git(s.project, "status", "--porcelain")).toBe("");
    const onRelease = await s.repo.mergeInto(s.store, s.project, { target: "release", tip, author: MEMBER, message: "Merge session" });
    if (onRelease.kind !== "merged") throw new Error(JSON.stringify(onRelease));
    expect(git(s.project, "show", `release:a.txt`)).toBe("a session\n");
    expect(git(s.project, "fsck", "--no-dangling", "--connectivity-only").trim()).toBe("");
  });

  it("a conflict, or local changes in the files the merge changes, change nothing", async () => {
    const s = await withWorkTree({ "a.txt": "a\n", "b.txt": "b\n" });
    writeFileSync(path.join(s.workTree, "a.txt"), "a session\n");
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree: await s.repo.workTreeTree(s.store, s.workTree, "w1"), message: "Session", author: MEMBER, workspace: "w1" });
    const conflicting = commitInProject(s.project, { "a.txt": "a main\n" });
    const projectRefs = refs(path.join(s.project, ".git"));
    expect(await s.repo.mergeInto(s.store, s.project, { target: "main", tip, author: MEMBER, message: "Merge" })).toEqual({ kind: "conflict", files: ["a.txt"] });
    expect(refs(path.join(s.project, ".git"))).toBe(projectRefs);
    git(s.project, "reset", "-q", "--hard", s.base);
    expect(conflicting).not.toBe(s.base);
    writeFileSync(path.join(s.project, "a.txt"), "local edit\n");
    const before = refs(path.join(s.project, ".git"));
    const refused = await rejection(s.repo.mergeInto(s.store, s.project, { target: "main", tip, author: MEMBER, message: "Merge" }));
    expect(refused.code).toBe("INVALID");
    expect(refused.message).toContain("local changes");
    expect(refs(path.join(s.project, ".git"))).toBe(before);
    expect(readFileSync(path.join(s.project, "a.txt"), "utf8")).toBe("local edit\n");
    expect(refs(s.store)).not.toContain(MERGED_PREFIX);
  });
});

describe("patches and pushes", () => {
  let server: GitServer;
  beforeAll(async () => {
    server = await startGitServer({ users: { robot: TOKEN } });
  });
  afterAll(() => server.close());

  it("formatPatch gives an mbox that git am applies cleanly on the base", async () => {
    const s = await withWorkTree();
    writeFileSync(path.join(s.workTree, "src/math.ts"), "export const one = 1;\nexport const two = 2;\n");
    writeFileSync(path.join(s.workTree, "logo.bin"), Buffer.from([0, 1, 2, 3, 255, 0]));
    const first = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree: await s.repo.workTreeTree(s.store, s.workTree, "w1"), message: "Two", author: MEMBER, workspace: "w1" });
    rmSync(path.join(s.workTree, "README.md"));
    const second = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: first, tree: await s.repo.workTreeTree(s.store, s.workTree, "w1"), message: "No readme", author: MEMBER, workspace: "w1" });
    const mbox = await s.repo.formatPatch(s.store, s.base, second);
    expect(mbox.match(/^From [0-9a-f]{40} /gm)).toHaveLength(2);
    const check = path.join(s.dir, "am");
    git(s.dir, "clone", "-q", s.project, check);
    git(check, "checkout", "-q", s.base);
    writeFileSync(path.join(s.dir, "series.mbox"), mbox);
    git(check, "am", "-q", path.join(s.dir, "series.mbox"));
    expect(git(check, "rev-parse", "HEAD^{tree}").trim()).toBe(await s.repo.treeOf(s.store, second));
    expect(git(check, "log", "-1", "--format=%an", "HEAD").trim()).toBe("Mia Member");
  });

  it("push puts exactly the session's commits on the branch with the member as author; a refusal is INVALID without the token", async () => {
    createBareRepo(server.root, "shop", { files: { "README.md": "# Shop\n" } });
    const s = await setup({ "README.md": "unused\n" });
    // The project is a clone of the remote (its origin/main is the base).
    const project = path.join(s.dir, "clone");
    git(s.dir, "clone", "-q", server.fileUrl("shop"), project);
    const store = path.join(s.dataDir, "workspaces", "p2", "store.git");
    await s.repo.ensureStore(store, path.join(project, ".git"));
    const base = await s.repo.resolveBase(project, "main");
    const dir = path.join(s.dataDir, "workspaces", "p2", "w1");
    await s.repo.createWorkTree(store, dir, { branch: "parley/readme-w1", base, workspace: "w1" });
    writeFileSync(path.join(dir, "README.md"), "# Shop, by the session\n");
    const tip = await s.repo.commit(store, { branch: "parley/readme-w1", expectedTip: base, tree: await s.repo.workTreeTree(store, dir, "w1"), message: "Readme", author: MEMBER, workspace: "w1" });
    const credential = { kind: "basic" as const, protocol: "http", host: new URL(server.url).host, user: "robot", password: TOKEN };
    const returned = await s.repo.push(store, { url: server.httpUrl("shop"), protocols: "http", credential, branch: "parley/readme-w1", tip });
    expect(JSON.stringify(returned ?? null)).not.toContain(TOKEN);
    const bare = path.join(server.root, "shop.git");
    expect(git(bare, "rev-parse", "refs/heads/parley/readme-w1").trim()).toBe(tip);
    expect(git(bare, "rev-list", `main..parley/readme-w1`).trim()).toBe(tip);
    expect(git(bare, "log", "-1", "--format=%an <%ae>", tip).trim()).toBe("Mia Member <mia@team.test>");
    expect(server.requests.some((request) => request.authorization === `Basic ${Buffer.from(`robot:${TOKEN}`).toString("base64")}`)).toBe(true);

    // Someone else pushed to the branch: not a fast-forward.
    const other = path.join(s.dir, "other");
    await gitAsync(s.dir, "clone", "-q", server.fileUrl("shop"), other);
    git(other, "checkout", "-q", "-b", "parley/readme-w1", base);
    writeFileSync(path.join(other, "x.txt"), "x\n");
    git(other, "add", "-A");
    git(other, "commit", "-q", "-m", "x");
    git(other, "push", "-q", "-f", "origin", "parley/readme-w1");
    const refused = await rejection(s.repo.push(store, { url: server.httpUrl("shop"), protocols: "http", credential, branch: "parley/readme-w1", tip }));
    expect(refused.code).toBe("INVALID");
    expect(refused.message).toMatch(/rejected|fetch first|non-fast-forward/);
    expect(refused.message).not.toContain(TOKEN);
    const wrong = await rejection(s.repo.push(store, { url: server.httpUrl("shop"), protocols: "http", credential: { ...credential, password: `${TOKEN}-wrong` }, branch: "parley/readme-w1", tip }));
    expect(wrong.message).not.toContain(TOKEN);
  });
});

describe("hostile working trees and project folders", () => {
  let marker: string;
  beforeEach(() => {
    marker = path.join(os.tmpdir(), `pwned-${randomBytes(6).toString("hex")}`);
  });
  afterEach(() => rmSync(marker, { force: true }));

  /** A git configuration that runs `touch <marker>` through every program-running setting it can. */
  const evilConfig = (at: string) =>
    [
      `[filter "evil"]`,
      `\tclean = touch ${at}`,
      `\tsmudge = touch ${at}`,
      `\tprocess = touch ${at}`,
      `\trequired = true`,
      `[diff "evil"]`,
      `\ttextconv = touch ${at}`,
      `\tcommand = touch ${at}`,
      `[merge "evil"]`,
      `\tdriver = touch ${at}`,
      `[core]`,
      `\tfsmonitor = touch ${at}`,
      `\thooksPath = /nonexistent-but-planted`,
      `\tworktree = /tmp`,
      `[diff]`,
      `\texternal = touch ${at}`,
      "",
    ].join("\n");

  it("planted filters, textconv, merge drivers and fsmonitor never run in commit, diff, update, merge or patch", async () => {
    const s = await withWorkTree({ "a.txt": "a\n", "b.txt": "b\n" });
    const attributes = "* filter=evil diff=evil merge=evil\n";
    // The working tree's own .git and attributes…
    writeFileSync(path.join(s.workTree, ".gitattributes"), attributes);
    writeFileSync(path.join(s.workTree, ".git", "config"), evilConfig(marker));
    // …and the project folder's (an agent wrote there before workspaces existed).
    const base = commitInProject(s.project, { ".gitattributes": attributes }, "Attributes");
    writeFileSync(path.join(s.project, ".git", "config"), `${readFileSync(path.join(s.project, ".git", "config"), "utf8")}\n${evilConfig(marker).replace("\tworktree = /tmp\n", "")}`);

    writeFileSync(path.join(s.workTree, "a.txt"), "a session\n");
    const tree = await s.repo.workTreeTree(s.store, s.workTree, "w1");
    await s.repo.diff(s.store, s.base, tree, { maxBytes: 100_000, workspace: "w1" });
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree, message: "Session", author: MEMBER, workspace: "w1" });
    await s.repo.formatPatch(s.store, s.base, tip);
    const updated = await s.repo.updateFromBase(s.store, { branch: "parley/fix-w1", tip, base, workTree: await s.repo.workTreeTree(s.store, s.workTree, "w1"), dir: s.workTree, author: MEMBER, workspace: "w1" });
    expect(updated.kind).toBe("updated");
    if (updated.kind !== "updated") return;
    expect(readFileSync(path.join(s.workTree, "a.txt"), "utf8")).toBe("a session\n");
    const merged = await s.repo.mergeInto(s.store, s.project, { target: "main", tip: updated.tip, author: MEMBER, message: "Merge" });
    expect(merged).toEqual({ kind: "merged", target: updated.tip, fastForward: true });
    expect(readFileSync(path.join(s.project, "a.txt"), "utf8")).toBe("a session\n");
    // The project's planted core.worktree was not followed.
    expect(existsSync("/tmp/a.txt") && readFileSync("/tmp/a.txt", "utf8") === "a session\n").toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it("a folder that is .git on macOS (.git + a zero-width joiner) is refused, never committed", async () => {
    const s = await withWorkTree();
    const hfsGit = path.join(s.workTree, ".git\u200c", "hooks");
    mkdirSync(hfsGit, { recursive: true });
    writeFileSync(path.join(hfsGit, "post-checkout"), `#!/bin/sh\ntouch ${marker}\n`);
    const refused = await rejection(s.repo.workTreeTree(s.store, s.workTree, "w1"));
    expect(refused.code).toBe("INVALID");
    expect(refused.message).toContain("invalid path");
  });

  it("a tree with a path inside .git (a pushed base can hold one) is never written into a working tree", async () => {
    const s = await withWorkTree();
    const inStore = (input: string, ...args: string[]) => execFileSync("git", ["--git-dir", s.store, ...args], { input, encoding: "utf8", env: { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH ?? "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } }).trim();
    const hook = inStore(`#!/bin/sh\ntouch ${marker}\n`, "hash-object", "-w", "--stdin");
    const hooks = inStore(`100755 blob ${hook}\tpost-checkout\n`, "mktree");
    const dotGit = inStore(`040000 tree ${hooks}\thooks\n`, "mktree");
    const baseTree = await s.repo.treeOf(s.store, s.base);
    const listing = git(s.store, "--git-dir", s.store, "ls-tree", baseTree);
    const evil = inStore(`${listing}040000 tree ${dotGit}\t.git\n`, "mktree");
    const refused = await rejection(s.repo.applyTree(s.store, s.workTree, baseTree, evil));
    expect(refused.code).toBe("INVALID");
    expect(existsSync(path.join(s.workTree, ".git", "hooks", "post-checkout"))).toBe(false);
  });

  it("a link planted in the project's .git (objects/pack) is refused by a merge: nothing is written through it", async () => {
    const s = await withWorkTree();
    writeFileSync(path.join(s.workTree, "README.md"), "# Merged\n");
    const tip = await s.repo.commit(s.store, { branch: "parley/fix-w1", expectedTip: s.base, tree: await s.repo.workTreeTree(s.store, s.workTree, "w1"), message: "Readme", author: MEMBER, workspace: "w1" });
    const elsewhere = path.join(s.dir, "elsewhere");
    mkdirSync(elsewhere);
    const pack = path.join(s.project, ".git", "objects", "pack");
    rmSync(pack, { recursive: true, force: true });
    symlinkSync(elsewhere, pack);
    const before = refs(path.join(s.project, ".git"));
    const refused = await rejection(s.repo.mergeInto(s.store, s.project, { target: "main", tip, author: MEMBER, message: "Merge" }));
    expect(refused.code).toBe("INVALID");
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(refs(path.join(s.project, ".git"))).toBe(before);
    expect(readFileSync(path.join(s.project, "README.md"), "utf8")).toBe("# Shop\n");
  });

  it("removeWorkTree deletes the working tree and nothing a link inside it points to", async () => {
    const s = await withWorkTree();
    const outside = path.join(s.dir, "precious");
    mkdirSync(outside);
    writeFileSync(path.join(outside, "keep.txt"), "keep\n");
    symlinkSync(outside, path.join(s.workTree, "link-to-folder"));
    symlinkSync(path.join(outside, "keep.txt"), path.join(s.workTree, "src", "link-to-file"));
    await removeWorkTree(s.workTree);
    expect(existsSync(s.workTree)).toBe(false);
    expect(readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("keep\n");
    expect(lstatSync(outside).isDirectory()).toBe(true);
    await removeWorkTree(s.workTree);
    // The branch stays until it is deleted, and only from the expected commit.
    expect((await rejection(s.repo.deleteBranch(s.store, "parley/fix-w1", "2".repeat(40)))).code).toBe("CONFLICT");
    await s.repo.deleteBranch(s.store, "parley/fix-w1", s.base);
    expect(refs(s.store)).not.toContain("parley/fix-w1");
  });
});
