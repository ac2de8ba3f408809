import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Info } from "../server/project/project";
import { captureConsole } from "./console";
import { leakWatch, projectAppEnv } from "./app";
import { appSuite, gitServerSuite } from "./suite";
import { type Browser, joinTeam, signUp } from "./auth";
import { directoryDigest, filesContaining } from "./files";
import { commitToBare, createBareRepo, git, startGitServer } from "./git-server";

/**
 * Git-backed projects through the real tRPC Route Handler with real sign-in cookies
 * (issue 31, point 1): clone over smart HTTP with a team secret (the git server sees the
 * basic auth; the token never appears anywhere else), create an empty repository, make a
 * registered folder a repository without changing a byte, fetch, default branch, and the
 * refusals (members, credentials in a URL, file:// unless the operator allows it).
 */

const TOKEN = "glpat-Zq7vT3kR9mXw2LpN8sYb";
const WRONG = "glpat-wrong-Hh4Jk8Lm2Nn6Pp0";
const KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAfakeDeployKeyMaterial0123456789abcdef\n-----END OPENSSH PRIVATE KEY-----\n";


describe("git-backed projects (integration, through HTTP)", () => {
  /** Every published event, every console line and every answer (`call`'s) while the file runs. */
  const { events, logged, responses: answers, call } = leakWatch(() => app);
  beforeAll(() => captureConsole(logged));
  const server = gitServerSuite({ robot: TOKEN }, (started) =>
    createBareRepo(started.root, "shop", { head: "trunk", files: { "README.md": "# Shop\n", "src/app.ts": "export const x = 1;\n" }, branches: { "feature/cart": { "src/cart.ts": "cart\n" } } }),
  );
  // The test server speaks plain HTTP on the loopback.
  const app = appSuite("projgit", (dir) => projectAppEnv(dir, { PARLEY_SIGNUP: "invite", PARLEY_GIT_ALLOW_HTTP: "true" }));
  let ann: Browser;
  let mia: Browser;
  let teamId: string;
  let root: string;
  let dataDir: string;
  let stopBus: (() => void) | undefined;
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

  beforeAll(async () => {
    root = path.join(app.dir, "projects");
    dataDir = path.join(app.dir, "data");
    stopBus = app.rt.services.bus.subscribeAll((event) => events.push(event));
    const auth = await (await import("../server/auth/instance")).getAuth();
    const { memberContext } = await import("../server/context");
    ann = await signUp(auth, "ann@projgit.test", "Ann");
    teamId = (await memberContext(ann.headers)).actor.teamId;
    mia = await joinTeam(auth, ann, teamId, "mia@projgit.test", { role: "member", name: "Mia" });
    for (const [name, kind, value] of [["shop-token", "git-token", TOKEN], ["bad-token", "git-token", WRONG], ["deploy-key", "ssh-key", KEY]] as const) {
      const set = await call("secret.set", { name, kind, value }, ann);
      expect(set.status, set.text).toBe(200);
    }
  });

  afterAll(() => {
    stopBus?.();
    vi.restoreAllMocks();
  });

  it("G1: an admin clones over https with a token secret: the server saw that basic auth, the clone has the files and the remote's HEAD branch", async () => {
    const before = server.requests.length;
    const res = await call<Info>("project.clone", { url: server.httpUrl("shop"), credential: "shop-token", user: "robot", pullRequestUrl: "https://forge.test/shop/compare/{branch}" }, ann);
    expect(res.status, res.text).toBe(200);
    expect(res.data).toMatchObject({ source: "clone", gitUrl: server.httpUrl("shop"), defaultBranch: "trunk", credential: "shop-token", gitUser: "robot", name: "shop" });
    expect(res.data.directory).toBe(path.join(root, "shop"));
    expect(readFileSync(path.join(root, "shop", "src", "app.ts"), "utf8")).toBe("export const x = 1;\n");
    const seen = server.requests.slice(before);
    expect(seen.some((r) => r.authorization === basic("robot", TOKEN) && r.status === 200)).toBe(true);
    expect(seen.every((r) => r.authorization === undefined || r.authorization === basic("robot", TOKEN))).toBe(true);
    const list = await call<Info[]>("project.list", undefined, mia);
    expect(list.data.find((p) => p.id === res.data.id)).toMatchObject({ source: "clone", gitUrl: server.httpUrl("shop"), defaultBranch: "trunk" });
    const branches = await call<string[]>("project.branches", { projectId: res.data.id }, mia);
    expect(branches.data).toEqual(["feature/cart", "trunk"]);
  });

  it("G2: a wrong token is a clear error without the token in it, and leaves no folder", async () => {
    const res = await call<Info>("project.clone", { url: server.httpUrl("shop"), credential: "bad-token", user: "robot", folder: "shop-wrong" }, ann);
    expect(res.status).toBe(400);
    expect(res.message).toMatch(/refused the credentials/);
    expect(res.text).not.toContain(WRONG);
    expect(server.requests.some((r) => r.authorization === basic("robot", WRONG) && r.status === 401)).toBe(true);
    expect(existsSync(path.join(root, "shop-wrong"))).toBe(false);
  });

  it("G3: a member can neither clone nor create an empty project (FORBIDDEN)", async () => {
    const cloned = await call("project.clone", { url: server.httpUrl("shop"), credential: "shop-token", folder: "mia-shop" }, mia);
    expect(cloned.status).toBe(403);
    const empty = await call("project.createEmpty", { folder: "mia-empty" }, mia);
    expect(empty.status).toBe(403);
    const branch = await call("project.setDefaultBranch", { projectId: (await call<Info[]>("project.list", undefined, mia)).data[0]!.id, branch: "main" }, mia);
    expect(branch.status).toBe(403);
    expect(existsSync(path.join(root, "mia-shop")) || existsSync(path.join(root, "mia-empty"))).toBe(false);
  });

  it("G4: a URL with credentials in it, a transport helper and an unknown protocol are refused", async () => {
    const withToken = await call("project.clone", { url: server.httpUrl("shop").replace("http://", `http://robot:${TOKEN}@`), folder: "leak" }, ann);
    expect(withToken.status).toBe(400);
    expect(withToken.message).toMatch(/team secret/);
    expect(withToken.text).not.toContain(TOKEN);
    const userOnly = await call("project.clone", { url: server.httpUrl("shop").replace("http://", "http://robot@"), folder: "leak" }, ann);
    expect(userOnly.status).toBe(400);
    const ext = await call("project.clone", { url: "ext::sh -c touch% /tmp/pwned", folder: "ext" }, ann);
    expect(ext.status).toBe(400);
    expect(ext.message).toMatch(/Transport helpers/);
    const ftp = await call("project.clone", { url: "ftp://example.test/repo.git", folder: "ftp" }, ann);
    expect(ftp.status).toBe(400);
    expect(existsSync(path.join(root, "leak")) || existsSync(path.join(root, "ext")) || existsSync("/tmp/pwned")).toBe(false);
  });

  it("G5: file:// and local paths are refused by default and allowed by the operator's git.allowLocalRemotes", async () => {
    const file = await call("project.clone", { url: server.fileUrl("shop"), folder: "local" }, ann);
    expect(file.status).toBe(400);
    expect(file.message).toMatch(/allowLocalRemotes/);
    const bare = await call("project.clone", { url: path.join(server.root, "shop.git"), folder: "local" }, ann);
    expect(bare.status).toBe(400);
    const settings = app.rt.services.settings;
    const saved = settings.git;
    settings.git = { allowLocalRemotes: true, allowHttp: true };
    try {
      const allowed = await call<Info>("project.clone", { url: server.fileUrl("shop"), folder: "local" }, ann);
      expect(allowed.status, allowed.text).toBe(200);
      expect(allowed.data).toMatchObject({ source: "clone", defaultBranch: "trunk" });
      expect(readFileSync(path.join(root, "local", "README.md"), "utf8")).toBe("# Shop\n");
    } finally {
      settings.git = saved;
    }
  });

  it("G6: create empty makes a repository with one empty commit on main, by the admin", async () => {
    const res = await call<Info>("project.createEmpty", { folder: "blank", name: "Blank" }, ann);
    expect(res.status, res.text).toBe(200);
    expect(res.data).toMatchObject({ source: "empty", defaultBranch: "main", gitUrl: null, name: "Blank" });
    const dir = path.join(root, "blank");
    expect(git(dir, "rev-list", "--count", "HEAD").trim()).toBe("1");
    expect(git(dir, "symbolic-ref", "--short", "HEAD").trim()).toBe("main");
    expect(git(dir, "ls-tree", "HEAD").trim()).toBe("");
    expect(git(dir, "log", "-1", "--format=%an <%ae>").trim()).toBe("Ann <ann@projgit.test>");
    const again = await call("project.createEmpty", { folder: "blank" }, ann);
    expect(again.status).toBe(409);
    const outside = await call("project.createEmpty", { folder: "../escape" }, ann);
    expect(outside.status).toBe(400);
  });

  it("G7: registering a folder that is not a repository makes it one: every file byte-identical, ignored files kept and not committed", async () => {
    const dir = path.join(root, "legacy");
    mkdirSync(path.join(dir, "src"), { recursive: true });
    mkdirSync(path.join(dir, "build"), { recursive: true });
    mkdirSync(path.join(dir, "empty-dir"), { recursive: true });
    writeFileSync(path.join(dir, ".gitignore"), "build/\n*.log\n");
    writeFileSync(path.join(dir, "src", "main.c"), "int main(void) { return 0; }\r\n"); // CRLF stays CRLF
    writeFileSync(path.join(dir, "src", "data.bin"), Buffer.from([0, 1, 2, 255, 13, 10]));
    writeFileSync(path.join(dir, "run.sh"), "#!/bin/sh\necho hi\n");
    chmodSync(path.join(dir, "run.sh"), 0o755);
    writeFileSync(path.join(dir, "build", "out.o"), "object");
    writeFileSync(path.join(dir, "debug.log"), "log line\n");
    const before = directoryDigest(dir);
    const res = await call<Info>("project.create", { directory: "legacy" }, ann);
    expect(res.status, res.text).toBe(200);
    expect(res.data).toMatchObject({ source: "directory", defaultBranch: "main", gitUrl: null });
    expect(directoryDigest(dir, { skip: [".git"] })).toBe(before);
    expect(git(dir, "ls-files").trim().split("\n").sort()).toEqual([".gitignore", "run.sh", "src/data.bin", "src/main.c"]);
    expect(git(dir, "status", "--porcelain").trim()).toBe("");
    expect(git(dir, "status", "--porcelain", "--ignored").trim().split("\n").sort()).toEqual(["!! build/", "!! debug.log"]);
    expect(readFileSync(path.join(dir, "build", "out.o"), "utf8")).toBe("object");
    expect(git(dir, "cat-file", "-p", "HEAD:src/main.c")).toBe("int main(void) { return 0; }\r\n");
    expect(git(dir, "ls-files", "-s", "run.sh")).toMatch(/^100755 /);
  });

  it("G8: registering a folder that is already a repository leaves it as it is", async () => {
    const dir = path.join(root, "existing");
    mkdirSync(dir, { recursive: true });
    git(dir, "init", "-q", "-b", "develop");
    writeFileSync(path.join(dir, "wip.txt"), "uncommitted\n");
    const before = directoryDigest(dir);
    const res = await call<Info>("project.create", { directory: "existing" }, ann);
    expect(res.status, res.text).toBe(200);
    expect(res.data.defaultBranch).toBe("develop");
    expect(directoryDigest(dir)).toBe(before);
  });

  it("G9: fetch picks up a branch pushed to the remote; setDefaultBranch takes only an existing branch", async () => {
    const project = (await call<Info[]>("project.list", undefined, ann)).data.find((p) => p.name === "shop")!;
    commitToBare(path.join(server.root, "shop.git"), "release", { "CHANGELOG.md": "1.0\n" }, "trunk");
    const missing = await call("project.setDefaultBranch", { projectId: project.id, branch: "release" }, ann);
    expect(missing.status).toBe(400);
    const before = server.requests.length;
    const fetched = await call<{ branches: string[] }>("project.fetch", { projectId: project.id }, mia);
    expect(fetched.status, fetched.text).toBe(200);
    expect(fetched.data.branches).toEqual(["feature/cart", "release", "trunk"]);
    expect(server.requests.slice(before).some((r) => r.authorization === basic("robot", TOKEN) && r.status === 200)).toBe(true);
    expect(git(project.directory, "show", "origin/release:CHANGELOG.md")).toBe("1.0\n");
    const set = await call<Info>("project.setDefaultBranch", { projectId: project.id, branch: "release" }, ann);
    expect(set.status, set.text).toBe(200);
    expect(set.data.defaultBranch).toBe("release");
    const noRemote = await call("project.fetch", { projectId: (await call<Info[]>("project.list", undefined, ann)).data.find((p) => p.name === "Blank")!.id }, ann);
    expect(noRemote.status).toBe(400);
  });

  it("G10: fetch never follows the project's own git config (an insteadOf planted by an agent does not get the token)", async () => {
    const project = (await call<Info[]>("project.list", undefined, ann)).data.find((p) => p.name === "shop")!;
    const trap = await startGitServer({ users: { robot: "anything" } });
    try {
      createBareRepo(trap.root, "shop", { files: { "x.txt": "x\n" } });
      git(project.directory, "config", `url.${trap.url}/.insteadOf`, `${server.url}/`);
      git(project.directory, "config", "credential.helper", "store");
      const fetched = await call("project.fetch", { projectId: project.id }, ann);
      expect(fetched.status, fetched.text).toBe(200);
      expect(trap.requests).toEqual([]);
    } finally {
      git(project.directory, "config", "--remove-section", `url.${trap.url}/`);
      git(project.directory, "config", "--unset", "credential.helper");
      await trap.close();
    }
  });

  it("G13: fetch runs no program a project's git config names (an alternate-refs command planted by an agent)", async () => {
    const project = (await call<Info[]>("project.list", undefined, ann)).data.find((p) => p.name === "shop")!;
    const marker = path.join(app.dir, "alternate-refs-ran");
    const other = path.join(app.dir, "other-objects");
    git(app.dir, "init", "-q", other);
    git(other, "commit", "-q", "--allow-empty", "-m", "other");
    const alternates = path.join(project.directory, ".git", "objects", "info", "alternates");
    writeFileSync(alternates, `${path.join(other, ".git", "objects")}\n`);
    git(project.directory, "config", "core.alternateRefsCommand", `touch ${marker}; true`);
    // Something new to fetch: git negotiates, and asks the alternates for their refs.
    commitToBare(path.join(server.root, "shop.git"), "hotfix", { "fix.txt": "fix\n" }, "trunk");
    try {
      const fetched = await call("project.fetch", { projectId: project.id }, ann);
      expect(fetched.status, fetched.text).toBe(200);
      const branches = await call("project.branches", { projectId: project.id }, ann);
      expect(branches.status, branches.text).toBe(200);
      expect(existsSync(marker)).toBe(false);
    } finally {
      git(project.directory, "config", "--unset", "core.alternateRefsCommand");
      rmSync(alternates);
    }
  });

  it("G14: a redirect to another host gets no credential (the helper answers only for the remote's own host)", async () => {
    const trap = await startGitServer({ users: { robot: "anything" } });
    try {
      createBareRepo(trap.root, "moved", { files: { "x.txt": "x\n" } });
      server.redirects.set("/shop-moved.git", `${trap.url}/moved.git`);
      const res = await call("project.clone", { url: `${server.url}/shop-moved.git`, credential: "shop-token", user: "robot", folder: "moved" }, ann);
      expect(res.status).toBe(400);
      expect(res.text).not.toContain(TOKEN);
      expect(trap.requests.length).toBeGreaterThan(0);
      expect(trap.requests.filter((r) => r.authorization !== undefined)).toEqual([]);
      expect(existsSync(path.join(root, "moved"))).toBe(false);
    } finally {
      server.redirects.delete("/shop-moved.git");
      await trap.close();
    }
  });

  it("G11: ssh with a deploy key: git runs ssh with the key in a 0600 file that is gone afterwards (a fake ssh on PATH stands in for sshd, which is not installed)", async () => {
    const bin = path.join(app.dir, "fake-ssh-bin");
    const record = path.join(app.dir, "fake-ssh.log");
    mkdirSync(bin, { recursive: true });
    // Records its arguments, the key file's mode and whether it holds the key, then serves the
    // repository as sshd would: by running the git command it was asked to run, locally.
    writeFileSync(
      path.join(bin, "ssh"),
      `#!/bin/sh\nkey=""\nprev=""\nfor a in "$@"; do [ "$prev" = "-i" ] && key="$a"; prev="$a"; done\n` +
        `{ echo "ARGS $*"; echo "MODE $(stat -c %a "$key")"; if cmp -s "$key" "${path.join(app.dir, "expected-key")}"; then echo KEY-OK; fi; echo "KEYFILE $key"; } >> "${record}"\n` +
        `for last; do :; done\ncd "${server.root}" && exec sh -c "$last"\n`,
    );
    chmodSync(path.join(bin, "ssh"), 0o755);
    writeFileSync(path.join(app.dir, "expected-key"), KEY);
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}:${savedPath ?? ""}`;
    try {
      const res = await call<Info>("project.clone", { url: "git@forge.test:shop.git", credential: "deploy-key", folder: "shop-ssh" }, ann);
      expect(res.status, res.text).toBe(200);
      expect(res.data).toMatchObject({ source: "clone", gitUrl: "git@forge.test:shop.git", defaultBranch: "trunk", credential: "deploy-key" });
      expect(readFileSync(path.join(root, "shop-ssh", "README.md"), "utf8")).toBe("# Shop\n");
    } finally {
      process.env.PATH = savedPath;
    }
    const log = readFileSync(record, "utf8");
    expect(log).toContain("KEY-OK");
    expect(log).toContain("MODE 600");
    expect(log).toMatch(/-F \/dev\/null .*IdentitiesOnly=yes .*StrictHostKeyChecking=accept-new/);
    expect(log).toContain("forge.test git-upload-pack 'shop.git'");
    const keyFile = /KEYFILE (\S+)/.exec(log)![1]!;
    expect(existsSync(keyFile)).toBe(false);
    const token = await call("project.clone", { url: "git@forge.test:shop.git", credential: "shop-token", folder: "shop-ssh2" }, ann);
    expect(token.status).toBe(400);
    expect(token.message).toMatch(/deploy key/);
  });

  it("G12: the token and the deploy key appear nowhere: .git/config, files under the projects and data directories, answers, events, console", () => {
    for (const secret of [TOKEN, WRONG, KEY.split("\n")[1]!]) {
      const encoded = Buffer.from(`robot:${secret}`).toString("base64");
      expect(readFileSync(path.join(root, "shop", ".git", "config"), "utf8")).not.toContain(secret);
      for (const needle of [secret, encoded]) {
        expect(filesContaining(root, needle)).toEqual([]);
        expect(filesContaining(dataDir, needle)).toEqual([]);
        expect(answers.filter((text) => text.includes(needle))).toEqual([]);
        expect(JSON.stringify(events)).not.toContain(needle);
        expect(logged.filter((line) => line.includes(needle))).toEqual([]);
      }
    }
    // The grep itself finds what it looks for: the remote URL is in the clone's config.
    expect(filesContaining(root, server.httpUrl("shop")).length).toBeGreaterThan(0);
    expect(statSync(path.join(dataDir, "git", "credential-helper.sh")).mode & 0o777).toBe(0o700);
    expect(readdirSync(path.join(dataDir, "git", "keys"))).toEqual([]);
  });
});
