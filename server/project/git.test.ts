import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ProgramRequest, ProgramResult, ProgramRunner } from "../process/helper";
import { ProjectGit } from "./git";
import { allowedProtocols, parseRemote } from "./remote";

const dataDir = mkdtempSync(path.join(os.tmpdir(), "parley-projgit-unit-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A runner that answers like a failing git and records what it was asked to run. */
function failing(stderr: (request: ProgramRequest) => string): ProgramRunner & { seen: ProgramRequest[]; keyMode: number[] } {
  const seen: ProgramRequest[] = [];
  const keyMode: number[] = [];
  return {
    seen,
    keyMode,
    run(request): Promise<ProgramResult> {
      seen.push(request);
      const key = /-i '([^']+)'/.exec(request.env.GIT_SSH_COMMAND ?? "")?.[1];
      if (key) keyMode.push(statSync(key).mode & 0o777);
      return Promise.resolve({ code: 128, signal: null, stdout: Buffer.alloc(0), stderr: Buffer.from(stderr(request)) });
    },
  };
}

describe("the server's git for projects", () => {
  it("redacts a token from git's message, in clear, URL-encoded and inside basic auth; the token is in no argument", async () => {
    const token = "tok/en+with=odd&chars-123456";
    const runner = failing(() => `fatal: unable to access 'https://robot:${encodeURIComponent(token)}@forge/': ${token}\nAuthorization: Basic ${Buffer.from(`robot:${token}`).toString("base64")}`);
    const git = new ProjectGit(dataDir, runner);
    const error = await git.run(["fetch", "https://forge/x.git"], { cwd: dataDir, protocols: "https", credential: { kind: "basic", protocol: "https", host: "forge", user: "robot", password: token } }, "Fetching").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain("[secret]");
    expect(message).not.toContain(token);
    expect(message).not.toContain(encodeURIComponent(token));
    expect(message).not.toContain(Buffer.from(`robot:${token}`).toString("base64"));
    const request = runner.seen[0]!;
    expect(request.args.join(" ")).not.toContain(token);
    expect(request.args).toContain(`credential.helper=!'${path.join(dataDir, "git", "credential-helper.sh")}'`);
    expect(request.env.PARLEY_GIT_PASSWORD).toBe(token);
    expect(request.env.PARLEY_GIT_HOST).toBe("forge");
    expect(request.env.GIT_TERMINAL_PROMPT).toBe("0");
    expect(request.env.GIT_CONFIG_NOSYSTEM).toBe("1");
    expect(request.args).toContain("credential.helper=");
  });

  it("a deploy key lives in a 0600 file only while git runs, and never in the message", async () => {
    const key = "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQC7unitTestKeyMaterial\n-----END OPENSSH PRIVATE KEY-----";
    const runner = failing(() => `Load key: AAAAB3NzaC1yc2EAAAADAQABAAABAQC7unitTestKeyMaterial invalid format`);
    const git = new ProjectGit(dataDir, runner);
    const error = await git.run(["fetch", "git@forge:x.git"], { cwd: dataDir, protocols: "ssh", credential: { kind: "ssh-key", key } }, "Fetching").catch((e: unknown) => e);
    expect((error as Error).message).not.toContain("unitTestKeyMaterial");
    expect(runner.keyMode).toEqual([0o600]);
    expect(readdirSync(path.join(dataDir, "git", "keys"))).toEqual([]);
    expect(runner.seen[0]!.env.PARLEY_GIT_PASSWORD).toBeUndefined();
    expect(runner.seen[0]!.args.some((arg) => arg.startsWith("credential.helper=!"))).toBe(false);
  });
});

describe("a call's own repository variables", () => {
  it("GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE… reach git; nothing else a call names replaces the credential or the configuration settings", async () => {
    const runner = failing(() => "fatal: no");
    const git = new ProjectGit(dataDir, runner);
    const planted = Object.fromEntries([
      ["GIT_DIR", "/srv/store.git"],
      ["GIT_INDEX_FILE", "/srv/store.git/index.w1"],
      ["GIT_CONFIG_GLOBAL", "/tmp/evil-config"],
      ["GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='touch /tmp/x'"],
      ["PARLEY_GIT_PASSWORD", "stolen"],
      ["GIT_SSH_COMMAND", "touch /tmp/x"],
    ]);
    await git.run(["status"], { cwd: dataDir, protocols: "", env: planted, input: "stdin text" }, "Status").catch((error: unknown) => error);
    const request = runner.seen[0]!;
    expect(request.env.GIT_DIR).toBe("/srv/store.git");
    expect(request.env.GIT_INDEX_FILE).toBe("/srv/store.git/index.w1");
    expect(request.env.GIT_CONFIG_GLOBAL).toBe("/dev/null");
    expect(request.env.GIT_CONFIG_PARAMETERS).toBeUndefined();
    expect(request.env.PARLEY_GIT_PASSWORD).toBeUndefined();
    expect(request.env.GIT_SSH_COMMAND).not.toContain("touch");
    expect(request.input).toBe("stdin text");
  });
});

describe("leftovers of a killed server", () => {
  it("a key file and a staging repository older than an hour are removed at the next start; newer ones stay", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "parley-projgit-sweep-"));
    try {
      const keys = path.join(dir, "git", "keys");
      const staging = path.join(dir, "git", "staging");
      for (const at of [path.join(keys, "k-old"), path.join(keys, "k-new"), path.join(staging, "f-old")]) mkdirSync(at, { recursive: true });
      writeFileSync(path.join(keys, "k-old", "id"), "key");
      const hoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
      utimesSync(path.join(keys, "k-old"), hoursAgo, hoursAgo);
      utimesSync(path.join(staging, "f-old"), hoursAgo, hoursAgo);
      const git = new ProjectGit(dir, failing(() => "fatal: no"));
      await git.run(["status"], { cwd: dir, protocols: "" }, "Status").catch((error: unknown) => error);
      expect(readdirSync(keys)).toEqual(["k-new"]);
      expect(readdirSync(staging)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("remote URLs", () => {
  const strict = { allowLocalRemotes: false, allowHttp: false };
  const open = { allowLocalRemotes: true, allowHttp: true };
  it("takes https, ssh and scp-style URLs and names the folder after the repository", () => {
    expect(parseRemote("https://forge.test/org/shop.git", strict)).toEqual({ url: "https://forge.test/org/shop.git", transport: "https", name: "shop" });
    expect(parseRemote("ssh://git@forge.test:2222/org/shop", strict)).toMatchObject({ transport: "ssh", name: "shop" });
    expect(parseRemote("git@forge.test:org/shop.git", strict)).toMatchObject({ transport: "ssh", name: "shop" });
  });
  it("refuses credentials, helpers, other protocols, option-like hosts and local remotes unless allowed", () => {
    for (const url of ["https://u:p@forge.test/x.git", "https://token@forge.test/x.git", "ssh://git:pw@forge.test/x", "ext::sh -c id", "fd::3", "ftp://forge.test/x", "ssh://-oProxyCommand=id/x", "-u:x", "http://forge.test/x.git", "file:///srv/x.git", "/srv/x.git", "relative/x.git", "https://forge.test/x\n.git"]) {
      expect(() => parseRemote(url, strict), url).toThrow();
    }
    expect(parseRemote("file:///srv/x.git", open)).toMatchObject({ transport: "file", name: "x" });
    expect(parseRemote("/srv/x.git", open)).toMatchObject({ transport: "file" });
    expect(parseRemote("http://127.0.0.1:8080/x.git", open)).toMatchObject({ transport: "http" });
    expect(allowedProtocols(strict)).toBe("https:ssh:git");
    expect(allowedProtocols(open)).toBe("https:ssh:git:http:file");
  });
});
