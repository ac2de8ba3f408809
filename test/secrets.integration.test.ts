import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Keyring, Secrets } from "../server/secrets";
import { captureConsole } from "./console";
import { type TestApp, leakWatch, openApp, projectAppEnv, type Auth } from "./app";
import { type Browser, joinTeam, signUp } from "./auth";
import { parleyError } from "./fixtures";

/**
 * Team secrets through the real tRPC Route Handler with real sign-in cookies (SPEC §16):
 * owners and admins set, replace and remove them; members see names and "set by / at"
 * only; another team sees nothing; values are sealed at rest under the server's key (not
 * in the database), open only in their own team and name, survive a key rotation, and
 * never come back in a response, a bus event or a log line.
 */

type Info = { name: string; kind: string; createdAt: number; updatedAt: number; updatedBy: { name: string } | null };

const KEY_A = randomBytes(32);
const KEY_B = randomBytes(32);
const VALUE = `ghp_${randomBytes(18).toString("base64url")}/+=&`;
const REPLACED = `glpat-${randomBytes(18).toString("hex")}`;
const ROOT = path.resolve(import.meta.dirname, "..");
const run = promisify(execFile);

describe("team secrets (integration, through HTTP)", () => {
  let app: TestApp;
  let auth: Auth;
  let ann: Browser;
  let carol: Browser;
  let bob: Browser;
  let zed: Browser;
  let teamId: string;
  let otherTeamId: string;
  let dataDir: string;
  /** Every published event, every console line and every answer while the file runs. */
  const { events, logged, responses, call } = leakWatch(() => app);
  let stopBus: () => void;

  beforeAll(async () => {
    captureConsole(logged);
    app = await openApp("secrets", (dir) =>
      projectAppEnv(dir, {
        PARLEY_SIGNUP: "open",
        PARLEY_SECRET_KEY: KEY_A.toString("base64"),
      }),
    );
    dataDir = path.join(app.dir, "data");
    stopBus = app.rt.services.bus.subscribeAll((event) => events.push(event));
    auth = await (await import("../server/auth/instance")).getAuth();
    const { memberContext } = await import("../server/context");
    ann = await signUp(auth, "ann@secrets.test", "Ann");
    teamId = (await memberContext(ann.headers)).actor.teamId;
    carol = await joinTeam(auth, ann, teamId, "carol@secrets.test", { role: "admin", name: "Carol" });
    bob = await joinTeam(auth, ann, teamId, "bob@secrets.test", { role: "member", name: "Bob" });
    zed = await signUp(auth, "zed@elsewhere.test", "Zed");
    otherTeamId = (await memberContext(zed.headers)).actor.teamId;
  });

  afterAll(async () => {
    stopBus?.();
    vi.restoreAllMocks();
    await app?.close();
  });

  it("an owner sets a secret: the answer is its metadata, never the value", async () => {
    const set = await call<Info>("secret.set", { name: "github-token", kind: "git-token", value: VALUE }, ann);
    expect(set.status, set.text).toBe(200);
    expect(set.data).toMatchObject({ name: "github-token", kind: "git-token", updatedBy: { name: "Ann" } });
    expect(Object.keys(set.data).sort()).toEqual(["createdAt", "kind", "name", "updatedAt", "updatedBy"]);
    expect(set.text).not.toContain(VALUE);
    expect(await Secrets.reveal(app.rt.services, teamId, "github-token")).toBe(VALUE);
  });

  it("the owner and a member list names, kinds and 'set by / at', never the value", async () => {
    for (const who of [ann, bob]) {
      const list = await call<Info[]>("secret.list", undefined, who);
      expect(list.status, list.text).toBe(200);
      expect(list.data).toEqual([expect.objectContaining({ name: "github-token", kind: "git-token", updatedBy: { name: "Ann" } })]);
      expect(list.text).not.toContain(VALUE);
    }
  });

  it("an admin replaces it: the new value, the admin as setter, the creation time kept", async () => {
    const before = (await call<Info[]>("secret.list", undefined, ann)).data[0]!;
    const set = await call<Info>("secret.set", { name: "github-token", kind: "git-password", value: REPLACED }, carol);
    expect(set.status, set.text).toBe(200);
    expect(set.data).toMatchObject({ name: "github-token", kind: "git-password", updatedBy: { name: "Carol" }, createdAt: before.createdAt });
    expect(set.data.updatedAt).toBeGreaterThanOrEqual(before.updatedAt);
    expect(set.text).not.toContain(REPLACED);
    expect(await Secrets.reveal(app.rt.services, teamId, "github-token")).toBe(REPLACED);
    expect((await call<Info>("secret.set", { name: "github-token", kind: "git-token", value: VALUE }, ann)).status).toBe(200);
  });

  it("a member cannot set or remove a secret (403), and nothing changes", async () => {
    const set = await call("secret.set", { name: "github-token", kind: "git-token", value: REPLACED }, bob);
    expect(set.status).toBe(403);
    expect(set.text).toContain("FORBIDDEN");
    expect(set.text).not.toContain(REPLACED);
    const added = await call("secret.set", { name: "bobs-token", kind: "git-token", value: REPLACED }, bob);
    expect(added.status).toBe(403);
    const removed = await call("secret.remove", { name: "github-token" }, bob);
    expect(removed.status).toBe(403);
    expect(await Secrets.reveal(app.rt.services, teamId, "github-token")).toBe(VALUE);
    expect((await call<Info[]>("secret.list", undefined, ann)).data.map((info) => info.name)).toEqual(["github-token"]);
  });

  it("another team sees none of them, cannot remove them, and its own of the same name is its own", async () => {
    const list = await call<Info[]>("secret.list", undefined, zed);
    expect(list.status).toBe(200);
    expect(list.data).toEqual([]);
    const removed = await call("secret.remove", { name: "github-token" }, zed);
    expect(removed.status).toBe(404);
    const own = await call<Info>("secret.set", { name: "github-token", kind: "git-token", value: REPLACED }, zed);
    expect(own.status, own.text).toBe(200);
    expect(await Secrets.reveal(app.rt.services, teamId, "github-token")).toBe(VALUE);
    expect(await Secrets.reveal(app.rt.services, otherTeamId, "github-token")).toBe(REPLACED);
    const annList = await call<Info[]>("secret.list", undefined, ann);
    expect(annList.data).toHaveLength(1);
    expect(annList.data[0]!.updatedBy).toEqual({ name: "Ann" });
  });

  it("refuses bad names, kinds and values without repeating the value", async () => {
    const cases = [
      { name: "GitHub Token", kind: "git-token", value: VALUE },
      { name: "x".repeat(65), kind: "git-token", value: VALUE },
      { name: "ok", kind: "password", value: VALUE },
      { name: "ok", kind: "git-token", value: "" },
      { name: "ok", kind: "git-token", value: `${VALUE}\0` },
      { name: "ok", kind: "git-token", value: `${VALUE}${"a".repeat(16 * 1024)}` },
    ];
    for (const input of cases) {
      const answer = await call("secret.set", input, ann);
      expect(answer.status, JSON.stringify(input).slice(0, 80)).toBe(400);
      expect(answer.text).not.toContain(VALUE);
    }
    expect((await call("secret.set", { name: "ok", kind: "git-token", value: "a".repeat(16 * 1024) }, ann)).status).toBe(200);
    expect((await call("secret.remove", { name: "ok" }, ann)).status).toBe(200);
  });

  it("the value is stored sealed: the row's bytes hold no plaintext, and it opens only in its own team and name", async () => {
    const rows = await app.rt.services.db.$queryRaw<{ sealed: Uint8Array; raw: string }[]>`SELECT "sealed", row_to_json(t)::text AS raw FROM "TeamSecret" t WHERE "teamId" = ${teamId}`;
    expect(rows).toHaveLength(1);
    const sealed = Buffer.from(rows[0]!.sealed);
    for (const form of [VALUE, Buffer.from(VALUE).toString("hex"), Buffer.from(VALUE).toString("base64")]) {
      expect(sealed.includes(Buffer.from(form))).toBe(false);
      expect(rows[0]!.raw).not.toContain(form);
    }
    const keyring = app.rt.services.keyring;
    await parleyError(keyring.open({ teamId: otherTeamId, name: "github-token" }, sealed), "CORRUPT");
    await parleyError(keyring.open({ teamId, name: "gitlab-token" }, sealed), "CORRUPT");
    // Copied into another team's row, it does not open there.
    await app.rt.services.db.teamSecret.update({ where: { teamId_name: { teamId: otherTeamId, name: "github-token" } }, data: { sealed } });
    await parleyError(Secrets.reveal(app.rt.services, otherTeamId, "github-token"), "CORRUPT");
    await app.rt.services.db.teamSecret.delete({ where: { teamId_name: { teamId: otherTeamId, name: "github-token" } } });
    // The server's key is not in the database: a dump of it opens nothing without PARLEY_SECRET_KEY.
    const settings = await app.rt.services.db.setting.findMany();
    for (const setting of settings) {
      expect(setting.value).not.toContain(KEY_A.toString("base64"));
      expect(setting.value).not.toContain(KEY_A.toString("hex"));
    }
  });

  it("rotation: key B with A as previous opens values sealed under A; after secrets:rotate only B is needed", async () => {
    const keyFile = path.join(dataDir, "secret-key");
    const onlyB = new Keyring({ current: KEY_B, keyFile });
    await parleyError(Secrets.reveal({ db: app.rt.services.db, keyring: onlyB }, teamId, "github-token"), "CORRUPT");
    const bWithA = new Keyring({ current: KEY_B, previous: [KEY_A], keyFile });
    expect(await Secrets.reveal({ db: app.rt.services.db, keyring: bWithA }, teamId, "github-token")).toBe(VALUE);

    const env = {
      ...process.env,
      DATABASE_URL: process.env.DATABASE_URL,
      PARLEY_DATA_DIR: dataDir,
      PARLEY_SECRET_KEY: KEY_B.toString("hex"),
      PARLEY_SECRET_KEY_PREVIOUS: `${randomBytes(32).toString("base64")}, ${KEY_A.toString("base64url")}`,
    };
    const rotated = await run(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "secrets-rotate.ts")], { cwd: ROOT, env });
    logged.push(rotated.stdout, rotated.stderr);
    expect(rotated.stdout).toMatch(/re-sealed 1 secret\(s\), 0 already under it/);

    expect(await Secrets.reveal({ db: app.rt.services.db, keyring: onlyB }, teamId, "github-token")).toBe(VALUE);
    await parleyError(Secrets.reveal({ db: app.rt.services.db, keyring: new Keyring({ current: KEY_A, keyFile }) }, teamId, "github-token"), "CORRUPT");
    // A second run has nothing left to do.
    const again = await run(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "secrets-rotate.ts")], { cwd: ROOT, env: { ...env, PARLEY_SECRET_KEY_PREVIOUS: "" } });
    logged.push(again.stdout, again.stderr);
    expect(again.stdout).toMatch(/re-sealed 0 secret\(s\), 1 already under it/);

    // A value no key opens is reported by team and name, left as it was, and the run fails.
    const stray = await new Keyring({ current: randomBytes(32), keyFile }).seal({ teamId: otherTeamId, name: "lost-key" }, REPLACED);
    await app.rt.services.db.teamSecret.create({ data: { id: "sec_stray", teamId: otherTeamId, name: "lost-key", kind: "git-token", sealed: stray } });
    const failed = await run(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "secrets-rotate.ts")], { cwd: ROOT, env }).then(
      () => undefined,
      (error: unknown) => error as { code: number; stdout: string; stderr: string },
    );
    expect(failed?.code, JSON.stringify(failed)).toBe(1);
    logged.push(failed?.stdout ?? "", failed?.stderr ?? "");
    expect(failed?.stderr).toContain(`team ${otherTeamId}, secret "lost-key" left as it was`);
    expect(Buffer.from((await app.rt.services.db.teamSecret.findUniqueOrThrow({ where: { id: "sec_stray" } })).sealed).equals(Buffer.from(stray))).toBe(true);
    await app.rt.services.db.teamSecret.delete({ where: { id: "sec_stray" } });
    expect(await Secrets.reveal({ db: app.rt.services.db, keyring: onlyB }, teamId, "github-token")).toBe(VALUE);
  });

  it("the sandbox sees neither the server's secret key (environment) nor the key file, nor any value", async () => {
    const keyFile = path.join(dataDir, "secret-key");
    // The key file as a server without PARLEY_SECRET_KEY makes it on first use.
    const fromFile = new Keyring({ keyFile });
    await fromFile.currentId();
    const fileKey = readFileSync(keyFile, "utf8").trim();
    expect(process.env.PARLEY_SECRET_KEY).toBe(KEY_A.toString("base64"));
    const project = path.join(app.dir, "projects", "app");
    const proc = await app.rt.services.sandbox.spawn({ argv: ["sh", "-c", `env; cat ${keyFile}; ls -a ${dataDir}; grep -rs . ${dataDir} | head -c 2000`], project });
    let output = "";
    proc.child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    proc.child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await proc.exited;
    expect(proc.confined).toBe(true);
    expect(output).toContain("PATH=");
    for (const secret of [KEY_A.toString("base64"), fileKey, VALUE, "PARLEY_SECRET_KEY"]) expect(output).not.toContain(secret);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    rmSync(keyFile);
  });

  it("an owner removes it: gone from the list, reveal finds nothing, a second remove is 404", async () => {
    const removed = await call("secret.remove", { name: "github-token" }, ann);
    expect(removed.status, removed.text).toBe(200);
    expect((await call<Info[]>("secret.list", undefined, bob)).data).toEqual([]);
    await parleyError(Secrets.reveal(app.rt.services, teamId, "github-token"), "NOT_FOUND");
    expect((await call("secret.remove", { name: "github-token" }, ann)).status).toBe(404);
  });

  it("grep: no response, bus event or log line of the whole file holds a secret value", () => {
    expect(responses.length).toBeGreaterThan(20);
    const channels = { responses: responses.join("\n"), events: JSON.stringify(events), logs: logged.join("\n") };
    for (const [channel, text] of Object.entries(channels)) {
      for (const value of [VALUE, REPLACED, encodeURIComponent(VALUE), Buffer.from(VALUE).toString("base64"), KEY_A.toString("base64"), KEY_B.toString("hex")]) {
        expect(text.includes(value), `${channel} holds a secret`).toBe(false);
      }
    }
  });
});
