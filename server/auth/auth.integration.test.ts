import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Browser, PASSWORD, authCall, signIn, signUp } from "../../test/auth";
import { type OwnDatabase, ownDatabase } from "../../test/db";
import { parleyError } from "../../test/fixtures";
import { Bus } from "../bus/bus";
import { requireActor } from "../context";
import { type Db, createDb } from "../db/client";
import * as Id from "../id";
import { Project } from "../project";
import { type Auth, createAuth } from "./auth";
import { signedInFromHeaders } from "./member";
import { authSecret } from "./secret";
import { testServices } from "../../test/runtime";

/** Sign-up, sign-in, teams, roles and invitations through better-auth's real handler, each install on its own database. */

const SECRET = "an integration test secret that is long enough 0123456789";

interface Install {
  own: OwnDatabase;
  db: Db;
  auth: Auth;
  dir: string;
  close(): Promise<void>;
}

/** A fresh install for the enclosing describe block (made before its tests, removed after them). */
function eachDescribe(signUp: "invite" | "open"): Install {
  let current: Install | undefined;
  beforeAll(async () => {
    current = await install(signUp);
  });
  afterAll(async () => {
    await current?.close();
  });
  return new Proxy({} as Install, {
    get(_target, key: keyof Install) {
      if (!current) throw new Error("no install outside the tests of its describe block");
      return current[key];
    },
  });
}

async function install(signUp: "invite" | "open"): Promise<Install> {
  const own = await ownDatabase("auth");
  const db = createDb(own.url, { max: 3 });
  const dir = mkdtempSync(path.join(os.tmpdir(), "parley-auth-"));
  const auth = createAuth({ db, secret: SECRET, publicUrl: undefined, signUp, defaultProject: path.join(dir, "projects", "default") });
  return {
    own,
    db,
    auth,
    dir,
    async close() {
      await db.$disconnect();
      await own.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function contextOf(db: Db, signedIn: NonNullable<Awaited<ReturnType<typeof signedInFromHeaders>>>) {
  return requireActor({ ...testServices(new Bus(), { db }), signedIn, actor: signedIn.team ? { userId: signedIn.user.id, teamId: signedIn.team.id } : undefined });
}

describe("sign-up by invitation (the default)", () => {
  let it_: Install;
  let ann: Browser;
  let teamId: string;
  const whoIs = (browser: Browser) => signedInFromHeaders(it_.auth, it_.db, browser.headers);

  beforeAll(async () => {
    it_ = await install("invite");
  });
  afterAll(async () => {
    await it_?.close();
  });

  it("the first user creates the first team, owns it, and starts with the default (sample) project", async () => {
    ann = await signUp(it_.auth, "ann@example.test", "Ann");
    const me = await whoIs(ann);
    expect(me?.user).toMatchObject({ id: ann.userId, name: "Ann", email: "ann@example.test" });
    expect(me?.team).toMatchObject({ name: "Ann's team", role: "owner" });
    expect(me?.teams).toHaveLength(1);
    teamId = me!.team!.id;
    expect(teamId).toMatch(/^tem_/);
    expect(ann.userId).toMatch(/^usr_/);
    const projects = await Project.list(contextOf(it_.db, me!));
    expect(projects).toEqual([expect.objectContaining({ teamId, name: "default", directory: path.join(it_.dir, "projects", "default") })]);
    expect(existsSync(path.join(it_.dir, "projects", "default", "README.md"))).toBe(true);
  });

  it("later, signing up needs an invitation, and no account is made without one", async () => {
    const res = await authCall(it_.auth, "/sign-up/email", { email: "eve@example.test", name: "Eve", password: PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ message: expect.stringContaining("invitation") });
    expect(await it_.db.user.count({ where: { email: "eve@example.test" } })).toBe(0);
  });

  let bob: Browser;
  it("an admin invites by email; the invitee signs up into no team, accepts, and works in the team as a member", async () => {
    const invited = await authCall(it_.auth, "/organization/invite-member", { email: "Bob@Example.test", role: "member", organizationId: teamId }, ann.headers);
    expect(invited.status).toBe(200);
    const invitationId = (invited.body as { id: string }).id;
    expect(invitationId).toMatch(/^inv_[A-Za-z0-9]{32}$/);

    bob = await signUp(it_.auth, "bob@example.test", "Bob", invitationId);
    const before = await whoIs(bob);
    expect(before?.team).toBeUndefined();
    expect(() => contextOf(it_.db, before!)).toThrow(/not a member of any team/);

    const accepted = await authCall(it_.auth, "/organization/accept-invitation", { invitationId }, bob.headers);
    expect(accepted.status).toBe(200);
    const after = await whoIs(bob);
    expect(after?.team).toEqual({ id: teamId, name: "Ann's team", role: "member" });
    // A used invitation cannot be accepted again.
    expect((await authCall(it_.auth, "/organization/accept-invitation", { invitationId }, bob.headers)).status).toBe(400);
  });

  it("an invited email signs up only with its invitation: knowing whom an admin invited is not enough", async () => {
    const invited = await authCall(it_.auth, "/organization/invite-member", { email: "fay@example.test", role: "admin", organizationId: teamId }, ann.headers);
    const invitationId = (invited.body as { id: string }).id;
    const other = await authCall(it_.auth, "/organization/invite-member", { email: "gus@example.test", role: "member", organizationId: teamId }, ann.headers);
    const othersInvitation = (other.body as { id: string }).id;
    const attempt = (headers?: Headers) => authCall(it_.auth, "/sign-up/email", { email: "Fay@Example.test", name: "Not Fay", password: PASSWORD }, headers);
    for (const headers of [undefined, new Headers({ "x-parley-invitation": othersInvitation }), new Headers({ "x-parley-invitation": "inv_madeup" })]) {
      const res = await attempt(headers);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ message: expect.stringContaining("invitation") });
    }
    expect(await it_.db.user.count({ where: { email: { equals: "fay@example.test", mode: "insensitive" } } })).toBe(0);
    // The one holding the link signs up and joins.
    const fay = await signUp(it_.auth, "fay@example.test", "Fay", invitationId);
    expect((await authCall(it_.auth, "/organization/accept-invitation", { invitationId }, fay.headers)).status).toBe(200);
    expect((await whoIs(fay))?.team).toMatchObject({ id: teamId, role: "admin" });
  });

  it("trusts only its own origin: another site can neither act with a member's cookie nor be a redirect target", async () => {
    const evil = new Headers(ann.headers);
    evil.set("origin", "http://evil.example");
    const invited = await authCall(it_.auth, "/organization/invite-member", { email: "mallory@example.test", role: "admin", organizationId: teamId }, evil);
    expect(invited.status).toBe(403);
    expect(await it_.db.invitation.count({ where: { email: "mallory@example.test" } })).toBe(0);
    // A page of another site whose form posts here is refused too (browsers send Sec-Fetch-Site).
    const crossSite = new Headers({ "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors", origin: "http://evil.example" });
    expect((await authCall(it_.auth, "/sign-in/email", { email: "ann@example.test", password: PASSWORD }, crossSite)).status).toBe(403);
    // Whatever Host a request names, its own origin is the one trusted, not any other.
    const otherHost = new Headers(ann.headers);
    otherHost.set("host", "parley.internal:8080");
    otherHost.set("origin", "http://parley.internal:8080");
    expect((await authCall(it_.auth, "/organization/list", undefined, otherHost)).status).toBe(200);
    expect((await authCall(it_.auth, "/organization/set-active", { organizationId: teamId }, otherHost)).status).toBe(200);
    // A password-reset link never sends the browser off-site.
    for (const callbackURL of ["https://evil.example/steal", "//evil.example/steal"]) {
      const res = await it_.auth.handler(new Request(`http://parley.test/api/auth/reset-password/some-token?callbackURL=${encodeURIComponent(callbackURL)}`));
      const location = res.headers.get("location");
      if (location !== null) expect(new URL(location, "http://parley.test").origin, `${callbackURL} → ${res.status} ${location}`).toBe("http://parley.test");
      else expect(res.status, callbackURL).toBeGreaterThanOrEqual(400);
    }
  });

  it("refuses a role Parley does not have with a clear 400, and changes nothing", async () => {
    const combined = await authCall(it_.auth, "/organization/invite-member", { email: "erin@example.test", role: "admin,member", organizationId: teamId }, ann.headers);
    expect(combined.status).toBe(400);
    expect(JSON.stringify(combined.body)).toContain("role must be one of owner, admin, member");
    const bobId = (await whoIs(bob))!.user.id;
    const membership = await it_.db.membership.findFirstOrThrow({ where: { teamId, userId: bobId } });
    const update = await authCall(it_.auth, "/organization/update-member-role", { memberId: membership.id, role: ["admin", "member"], organizationId: teamId }, ann.headers);
    expect(update.status).toBe(400);
    expect(JSON.stringify(update.body)).toContain("role must be one of owner, admin, member");
    expect((await whoIs(bob))?.team?.role).toBe("member");
  });

  it("a member can neither invite nor register or remove projects", async () => {
    const res = await authCall(it_.auth, "/organization/invite-member", { email: "carl@example.test", role: "member", organizationId: teamId }, bob.headers);
    expect(res.status).toBe(403);
    const ctx = contextOf(it_.db, (await whoIs(bob))!);
    await parleyError(Project.create(ctx, { directory: "anything" }, { root: it_.dir }), "FORBIDDEN");
    const [project] = await Project.list(ctx);
    await parleyError(Project.remove(ctx, project!.id), "FORBIDDEN");
  });

  it("an invitation is only for its email: someone else signed in cannot read or accept it", async () => {
    const invited = await authCall(it_.auth, "/organization/invite-member", { email: "dana@example.test", role: "admin", organizationId: teamId }, ann.headers);
    const invitationId = (invited.body as { id: string }).id;
    expect((await authCall(it_.auth, `/organization/get-invitation?id=${invitationId}`, undefined, bob.headers)).status).toBe(403);
    expect((await authCall(it_.auth, "/organization/accept-invitation", { invitationId }, bob.headers)).status).toBe(403);
    const dana = await signUp(it_.auth, "dana@example.test", "Dana", invitationId);
    expect((await authCall(it_.auth, "/organization/accept-invitation", { invitationId }, dana.headers)).status).toBe(200);
    expect((await whoIs(dana))?.team?.role).toBe("admin");
  });

  it("a user in two teams works in the active one, switches, and cannot switch into a team they are not in", async () => {
    const created = await authCall(it_.auth, "/organization/create", { name: "Side project", slug: "side-project" }, ann.headers);
    expect(created.status).toBe(200);
    const sideId = (created.body as { id: string }).id;
    expect(sideId).toMatch(/^tem_/);
    expect((await whoIs(ann))?.team).toEqual({ id: sideId, name: "Side project", role: "owner" });
    expect((await whoIs(ann))?.teams.map((t) => t.id)).toEqual([teamId, sideId]);

    expect((await authCall(it_.auth, "/organization/set-active", { organizationId: teamId }, ann.headers)).status).toBe(200);
    expect((await whoIs(ann))?.team?.id).toBe(teamId);

    expect((await authCall(it_.auth, "/organization/set-active", { organizationId: sideId }, bob.headers)).status).toBe(403);
    expect((await whoIs(bob))?.team?.id).toBe(teamId);
    // Nor through a made-up id.
    expect((await authCall(it_.auth, "/organization/set-active", { organizationId: Id.ascending("team") }, bob.headers)).status).toBeGreaterThanOrEqual(400);
  });

  it("a removed member loses access at once, even with an active sign-in in that team", async () => {
    const members = await it_.db.membership.findMany({ where: { teamId, userId: bob.userId } });
    const removed = await authCall(it_.auth, "/organization/remove-member", { memberIdOrEmail: members[0]!.id, organizationId: teamId }, ann.headers);
    expect(removed.status).toBe(200);
    const me = await whoIs(bob);
    expect(me?.team).toBeUndefined();
    expect(() => contextOf(it_.db, me!)).toThrow(/not a member/);
  });

  it("signing in again starts in the user's first team; a wrong password or a forged cookie is no sign-in", async () => {
    const again = await signIn(it_.auth, "ann@example.test");
    expect((await whoIs(again))?.team?.id).toBe(teamId);
    expect((await authCall(it_.auth, "/sign-in/email", { email: "ann@example.test", password: "not the password" })).status).toBe(401);
    const cookie = again.headers.get("cookie")!;
    const forged = new Headers({ cookie: cookie.replace(/=([^.;]+)\./, "=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.") });
    expect(await signedInFromHeaders(it_.auth, it_.db, forged)).toBeNull();
  });

  it("signing out ends that browser's sign-in, and only that one", async () => {
    const other = await signIn(it_.auth, "ann@example.test");
    expect((await authCall(it_.auth, "/sign-out", {}, ann.headers)).status).toBe(200);
    expect(await whoIs(ann)).toBeNull();
    expect((await whoIs(other))?.user.id).toBe(ann.userId);
  });

  it("passwords are stored hashed, never as sent", async () => {
    const account = await it_.db.account.findFirstOrThrow({ where: { userId: ann.userId, providerId: "credential" } });
    expect(account.password).toBeTruthy();
    expect(account.password).not.toContain(PASSWORD);
  });
});

describe("the cookie key", () => {
  const it_ = eachDescribe("invite");

  it("is made once and kept in the database, so every instance on it agrees; a configured one wins", async () => {
    const [a, b] = await Promise.all([authSecret(it_.db, undefined), authSecret(it_.db, undefined)]);
    expect(a).toBe(b);
    expect(a.length).toBeGreaterThanOrEqual(40);
    expect(await authSecret(it_.db, undefined)).toBe(a);
    expect(await authSecret(it_.db, "configured secret that is long enough, 32+")).toBe("configured secret that is long enough, 32+");
  });

  it("signs the cookie: another instance with the same key accepts it, one with another key does not", async () => {
    const key = await authSecret(it_.db, undefined);
    const options = { db: it_.db, publicUrl: undefined, signUp: "invite" as const, defaultProject: path.join(it_.dir, "default") };
    const ann = await signUp(createAuth({ ...options, secret: key }), "ann@example.test");
    expect((await signedInFromHeaders(createAuth({ ...options, secret: key }), it_.db, ann.headers))?.user.id).toBe(ann.userId);
    expect(await signedInFromHeaders(createAuth({ ...options, secret: SECRET }), it_.db, ann.headers)).toBeNull();
  });
});

describe("open sign-up", () => {
  const it_ = eachDescribe("open");

  it("after the first user, someone without an invitation gets a team of their own, with no project", async () => {
    const first = await signUp(it_.auth, "first@example.test", "First");
    const second = await signUp(it_.auth, "second@example.test", "Second");
    const a = await signedInFromHeaders(it_.auth, it_.db, first.headers);
    const b = await signedInFromHeaders(it_.auth, it_.db, second.headers);
    expect(b?.team).toMatchObject({ name: "Second's team", role: "owner" });
    expect(b?.team?.id).not.toBe(a?.team?.id);
    expect(await Project.list(contextOf(it_.db, b!))).toEqual([]);
  });

  it("someone with a pending invitation joins by accepting it, without a team of their own", async () => {
    const first = await signIn(it_.auth, "first@example.test");
    const teamId = (await signedInFromHeaders(it_.auth, it_.db, first.headers))!.team!.id;
    await authCall(it_.auth, "/organization/invite-member", { email: "third@example.test", role: "member", organizationId: teamId }, first.headers);
    const third = await signUp(it_.auth, "third@example.test", "Third");
    expect((await signedInFromHeaders(it_.auth, it_.db, third.headers))?.teams).toEqual([]);
  });
});

describe("an install from before sign-in existed", () => {
  const it_ = eachDescribe("invite");

  it("the first user takes over the teams left without members (and their sessions), instead of a new one", async () => {
    // What the migration leaves: the local team and its project, its local user's membership removed.
    const legacyTeam = Id.ascending("team");
    await it_.db.team.create({ data: { id: legacyTeam, name: "Local team", slug: "local" } });
    await it_.db.user.create({ data: { id: Id.ascending("user"), email: "local@parley.local", name: "Local user" } });
    await it_.db.project.create({ data: { id: Id.ascending("project"), teamId: legacyTeam, name: "default", directory: "/srv/old" } });

    const ann = await signUp(it_.auth, "ann@example.test", "Ann");
    const me = await signedInFromHeaders(it_.auth, it_.db, ann.headers);
    expect(me?.teams).toEqual([{ id: legacyTeam, name: "Local team", role: "owner" }]);
    expect(me?.team?.id).toBe(legacyTeam);
    expect(await it_.db.team.count()).toBe(1);
    expect((await Project.list(contextOf(it_.db, me!))).map((p) => p.directory)).toEqual(["/srv/old"]);
  });
});

describe("staying signed in", () => {
  let it_: Install;
  beforeAll(async () => {
    it_ = await install("open");
  });
  afterAll(async () => {
    vi.useRealTimers();
    await it_?.close();
  });

  it("a sign-in in use is renewed by /get-session (which the app calls), so an active user is never signed out after 7 days", async () => {
    const ann = await signUp(it_.auth, "renew@example.test", "Renew");
    const before = await it_.db.authSession.findFirstOrThrow({ where: { userId: ann.userId } });
    // Two days later (past better-auth's one-day update age), the app asks for the session.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 2 * 24 * 60 * 60 * 1000);
    const res = await authCall(it_.auth, "/get-session", undefined, ann.headers);
    expect(res.status).toBe(200);
    const after = await it_.db.authSession.findFirstOrThrow({ where: { userId: ann.userId } });
    expect(after.expiresAt.getTime()).toBeGreaterThan(before.expiresAt.getTime() + 24 * 60 * 60 * 1000);
    // The browser gets a fresh cookie with the new lifetime.
    expect(res.cookies.some((c) => /session_token=/.test(c) && /Max-Age=\d+/i.test(c))).toBe(true);
    vi.useRealTimers();
  });
});
