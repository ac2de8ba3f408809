import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GitServer, commitToBare, createBareRepo, git, gitAsync, startGitServer } from "./git-server";

/** The test git server itself: smart HTTP with basic auth, pushes (gzip bodies), file:// URLs. */
describe("test git server (git http-backend behind basic auth)", () => {
  let server: GitServer;
  let work: string;
  const token = "tok-harness-1";
  const withAuth = (url: string, password = token) => url.replace("http://", `http://robot:${password}@`);

  beforeAll(async () => {
    server = await startGitServer({ users: { robot: token } });
    work = mkdtempSync(path.join(os.tmpdir(), "parley-git-harness-"));
    createBareRepo(server.root, "demo", { files: { "README.md": "hello\n" }, branches: { feature: { "f.txt": "f\n" } } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("clones with the right password and records the Authorization header", async () => {
    await gitAsync(work, "clone", "-q", withAuth(server.httpUrl("demo")), "a");
    expect(readFileSync(path.join(work, "a", "README.md"), "utf8")).toBe("hello\n");
    expect(git(path.join(work, "a"), "branch", "-r")).toContain("origin/feature");
    const expected = `Basic ${Buffer.from(`robot:${token}`).toString("base64")}`;
    expect(server.requests.some((r) => r.authorization === expected && r.status === 200)).toBe(true);
  });

  it("refuses a wrong password with 401", async () => {
    await expect(gitAsync(work, "clone", "-q", withAuth(server.httpUrl("demo"), "nope"), "b")).rejects.toThrow(/Authentication failed|401/);
    expect(server.requests.at(-1)?.status).toBe(401);
  });

  it("takes a large push (a gzip request body) and serves file:// URLs", async () => {
    const clone = path.join(work, "a");
    // Incompressible data well over http.postBuffer's 1 MiB: git sends it gzip-encoded and chunked.
    writeFileSync(path.join(clone, "big.bin"), randomBytes(3 * 1024 * 1024));
    git(clone, "add", "big.bin");
    git(clone, "commit", "-q", "-m", "big");
    await gitAsync(clone, "push", "-q", "origin", "HEAD:refs/heads/big");
    const head = git(clone, "rev-parse", "HEAD").trim();
    expect(git(path.join(server.root, "demo.git"), "rev-parse", "refs/heads/big").trim()).toBe(head);
    expect(server.requests.some((r) => r.method === "POST" && r.url.endsWith("git-receive-pack") && r.status === 200)).toBe(true);
    git(work, "clone", "-q", server.fileUrl("demo"), "c");
    expect(git(path.join(work, "c"), "branch", "-r")).toContain("origin/big");
  });

  it("takes a gzip-encoded request body (as git sends a large fetch negotiation)", async () => {
    const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, "0")}${line}`;
    const body = gzipSync(`${pkt("command=ls-refs\n")}0000`);
    const res = await fetch(`${server.httpUrl("demo")}/git-upload-pack`, {
      method: "POST",
      body,
      headers: {
        authorization: `Basic ${Buffer.from(`robot:${token}`).toString("base64")}`,
        "content-type": "application/x-git-upload-pack-request",
        "content-encoding": "gzip",
        "git-protocol": "version=2",
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("refs/heads/feature");
    expect(server.requests.at(-1)?.encoding).toBe("gzip");
  });

  it("commitToBare adds a branch", () => {
    const sha = commitToBare(path.join(server.root, "demo.git"), "later", { "later.txt": "x\n" });
    expect(git(path.join(server.root, "demo.git"), "rev-parse", "refs/heads/later").trim()).toBe(sha);
  });
});
