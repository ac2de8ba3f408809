import { type TestApp, openApp, projectAppEnv, type Auth } from "./app";
import { type Browser, joinTeam, signUp } from "./auth";
import { suiteFixture } from "./suite";

/** What `memberContext` gives for a signed-in member: acting as them in server calls. */
export type MemberContext = Awaited<ReturnType<typeof import("../server/context")["memberContext"]>>;

export interface TwoTeams {
  app: TestApp;
  /** Ann, in her team; `annCtx` acts as her, `projectId` is her team's project. */
  ann: Browser;
  annCtx: MemberContext;
  projectId: string;
  /** Bob, who signed up without an invitation: a team of his own. */
  bob: Browser;
}

/** An app with open sign-up (and `env()` on top) and two members, each alone in a team of their own (emails at `<label>.test`). */
export async function twoTeams(label: string, env: () => Record<string, string> = () => ({})): Promise<TwoTeams> {
  const app = await openApp(label, (dir) => projectAppEnv(dir, { PARLEY_SIGNUP: "open", ...env() }));
  const auth = await (await import("../server/auth/instance")).getAuth();
  const { memberContext } = await import("../server/context");
  const ann = await signUp(auth, `ann@${label}.test`, "Ann");
  const bob = await signUp(auth, `bob@${label}.test`, "Bob");
  const annCtx = await memberContext(ann.headers);
  const projectId = (await app.rt.services.db.project.findFirstOrThrow({ where: { teamId: annCtx.actor.teamId } })).id;
  return { app, ann, annCtx, projectId, bob };
}

/** `twoTeams(label)` for a whole `describe`: opened before its tests, closed after them. */
export function twoTeamsSuite(label: string, env?: () => Record<string, string>): TwoTeams {
  return suiteFixture(() => twoTeams(label, env), (teams) => teams.app.close());
}

export interface AnnAndBob {
  auth: Auth;
  /** Ann signed up first: the team and its sample project are hers. */
  ann: Browser;
  /** Bob, a member she invited. */
  bob: Browser;
  teamId: string;
  projectId: string;
}

/** In `app`: Ann signs up first (her team, with the sample project; her email at `<label>.test`). */
export async function annSignsUp(app: TestApp, label: string): Promise<Omit<AnnAndBob, "bob">> {
  const auth = await (await import("../server/auth/instance")).getAuth();
  const { memberContext } = await import("../server/context");
  const ann = await signUp(auth, `ann@${label}.test`, "Ann");
  const teamId = (await memberContext(ann.headers)).actor.teamId;
  const projectId = (await app.rt.services.db.project.findFirstOrThrow({ where: { teamId } })).id;
  return { auth, ann, teamId, projectId };
}

/** In `app`: Ann signs up (annSignsUp) and invites Bob as a member (emails at `<label>.test`). */
export async function annInvitesBob(app: TestApp, label: string, bob: { name?: string } = {}): Promise<AnnAndBob> {
  const owner = await annSignsUp(app, label);
  return { ...owner, bob: await joinTeam(owner.auth, owner.ann, owner.teamId, `bob@${label}.test`, { role: "member", ...bob }) };
}
