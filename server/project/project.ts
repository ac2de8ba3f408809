import { mkdir, realpath, rm, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import type { Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import { refuseNul } from "../nul";
import { Secrets } from "../secrets";
import { projectRow } from "../session/access";
import type { Context, Settings } from "../services";
import type { Credential } from "./git";
import { headBranch, isRepository, makeRepository, projectGit } from "./repository";
import { type Remote, type RemotePolicy, allowedProtocols, parseRemote } from "./remote";
import { isInside } from "../inside";

export const Source = z.enum(["directory", "clone", "empty"]);
export type Source = z.infer<typeof Source>;

export const Info = z.object({
  id: z.string(),
  teamId: z.string(),
  name: z.string(),
  directory: z.string(),
  /** How it came: a registered folder, a clone, or made empty. */
  source: Source,
  /** The remote it was cloned from (never a credential in it). */
  gitUrl: z.string().nullable(),
  /** The branch sessions start from. */
  defaultBranch: z.string().nullable(),
  /** The name of the team secret used with the remote (never its value). */
  credential: z.string().nullable(),
  gitUser: z.string().nullable(),
  pullRequestUrl: z.string().nullable(),
});
export type Info = z.infer<typeof Info>;

type Row = {
  id: string;
  teamId: string;
  name: string;
  directory: string;
  source: string;
  gitUrl: string | null;
  defaultBranch: string | null;
  credential: string | null;
  gitUser: string | null;
  pullRequestUrl: string | null;
};
const info = (row: Row): Info => ({
  id: row.id,
  teamId: row.teamId,
  name: row.name,
  directory: row.directory,
  source: Source.catch("directory").parse(row.source),
  gitUrl: row.gitUrl,
  defaultBranch: row.defaultBranch,
  credential: row.credential,
  gitUser: row.gitUser,
  pullRequestUrl: row.pullRequestUrl,
});

export async function list(ctx: Pick<Context, "db" | "actor">): Promise<Info[]> {
  const rows = await ctx.db.project.findMany({ where: { teamId: ctx.actor.teamId }, orderBy: { createdAt: "asc" } });
  return rows.map(info);
}

export const CreateInput = z.object({
  /** A folder inside the projects root: relative to it, or absolute. */
  directory: refuseNul(z.string().trim().min(1).max(1000), "a directory"),
  name: refuseNul(z.string().trim().min(1).max(100), "a project name").optional(),
});
export type CreateInput = z.infer<typeof CreateInput>;


/** The real path of an existing directory (INVALID when it is missing or not a directory). */
export async function realDirectory(directory: string, what: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw ParleyError.invalid(`${what} ${directory} does not exist`);
    throw error;
  }
  if (!(await stat(real)).isDirectory()) throw ParleyError.invalid(`${what} ${directory} is not a directory`);
  return real;
}

/**
 * Where a stored path is on disk now: its real path, or itself (normalized) when it is
 * gone. Rows stored before directories were canonical may hold a link or a `./`.
 */
async function currentLocation(directory: string): Promise<string> {
  try {
    return await realpath(directory);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return path.resolve(directory);
    throw error;
  }
}

/**
 * The canonical directory of a new project and of the projects root: inside `root` both
 * as written (no `..` or absolute path out of it) and once symbolic links are followed,
 * an existing directory, and not the root itself (which holds every team's projects).
 */
export async function resolveDirectory(root: string, directory: string): Promise<{ directory: string; root: string }> {
  const realRoot = await realDirectory(root, "The projects root");
  const asWritten = path.resolve(root, directory);
  if (!isInside(path.resolve(root), asWritten)) throw ParleyError.invalid(`${directory} is outside the projects root ${root}`);
  const real = await realDirectory(asWritten, "The directory");
  if (!isInside(realRoot, real)) throw ParleyError.invalid(`${directory} leads outside the projects root ${root} (through a symbolic link)`);
  if (real === realRoot) throw ParleyError.invalid(`Choose a folder inside the projects root ${root}, not the root itself`);
  return { directory: real, root: realRoot };
}

/**
 * Whether a project at `directory` (real, inside `root`) would reach Parley's own places
 * (settings.forbidden: the data directory, the database cluster, the projects root): being
 * one, holding one, or lying inside one — except inside one that holds the projects root
 * itself (the default root is `<data>/projects`).
 */
async function reachesParleyData(directory: string, root: string, forbidden: string[]): Promise<boolean> {
  const places = await Promise.all(forbidden.map(currentLocation));
  return places.some((place) => isInside(directory, place) || (isInside(place, directory) && !isInside(place, root)));
}

/** Where project directories may be registered (a server path): for the owners and admins who register them. */
export async function root(ctx: Pick<Context, "db" | "actor">, options: { root: string }): Promise<{ root: string }> {
  await requireRole(ctx, ADMIN_ROLES, "see where projects are registered");
  return { root: options.root };
}

/**
 * Registration checks every team's projects, then inserts: two requests checking at once
 * would both pass. So each takes one PostgreSQL advisory lock held until its transaction
 * ends (pg_advisory_xact_lock) — shared by every server instance on the database — and
 * checks only once it holds it, seeing any row inserted before. Chosen over a serializable
 * transaction, which would need a retry loop around a rare, short write. The two-key form
 * keeps it apart from the run lock's one-key (bigint) session locks.
 */
const REGISTRATION_LOCK = { classId: 0x7061726c, objId: 0x70726a74 }; // "parl", "prjt"

export interface NewProject {
  teamId: string;
  name: string;
  /** A real path (realDirectory). */
  directory: string;
  source?: Source;
  gitUrl?: string;
  defaultBranch?: string;
  credential?: string;
  gitUser?: string;
  pullRequestUrl?: string;
}

/**
 * Inserts a project in `tx` (a transaction, which keeps the registration lock until it
 * ends) unless its directory is already one of the team's projects (CONFLICT) or lies
 * inside, around or at another team's project (CONFLICT): a directory belongs to one team.
 * `asGiven` names the directory in the message (another team's path, and that it is
 * another team's, are never shown).
 */
export async function insert(tx: Prisma.TransactionClient, project: NewProject, asGiven: string): Promise<Info> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${REGISTRATION_LOCK.classId}::int4, ${REGISTRATION_LOCK.objId}::int4)`;
  const rows = await tx.project.findMany({ select: { teamId: true, directory: true } });
  const others = await Promise.all(rows.map(async (row) => ({ teamId: row.teamId, places: [path.resolve(row.directory), await currentLocation(row.directory)] })));
  for (const other of others) {
    if (other.teamId === project.teamId) {
      if (other.places.includes(project.directory)) throw new ParleyError("CONFLICT", `${asGiven} is already a project of this team`);
    } else if (other.places.some((place) => isInside(place, project.directory) || isInside(project.directory, place))) {
      // Whose project it is stays unsaid: another team's folders are none of this team's business.
      throw new ParleyError("CONFLICT", `This folder cannot be used: it is inside, around or equal to a folder already registered (${asGiven}).`);
    }
  }
  const row = await tx.project.create({ data: { id: Id.ascending("project"), ...project } });
  return info(row);
}

/**
 * Registers a project directory for the actor's team (owners and admins only), stored as
 * its real path. Refused: a folder outside the projects root, one reaching Parley's own
 * data, and one inside, around or equal to another team's project — so no team can reach
 * another's files, or Parley's, through a project.
 */
export async function create(ctx: Pick<Context, "db" | "actor" | "settings">, input: CreateInput, options: { root: string }): Promise<Info> {
  await requireRole(ctx, ADMIN_ROLES, "register projects");
  const { directory, root } = await resolveDirectory(options.root, input.directory);
  if (await reachesParleyData(directory, root, ctx.settings.forbidden)) {
    throw ParleyError.invalid(`${input.directory} overlaps Parley's own data (its data directory): choose another folder`);
  }
  const project = { teamId: ctx.actor.teamId, name: input.name ?? path.basename(directory), directory };
  const created = await ctx.db.$transaction((tx) => insert(tx, project, input.directory));
  // Only the request that registered the folder makes it a repository (concurrent ones lost above).
  let defaultBranch: string | null;
  try {
    defaultBranch = await adopt(ctx, directory);
  } catch (error) {
    await ctx.db.project.delete({ where: { id: created.id } });
    throw error;
  }
  const row = await ctx.db.project.update({ where: { id: created.id }, data: { defaultBranch } });
  return info(row);
}

// ---------------------------------------------------------------------------------------
// Git-backed projects: a registered folder made a repository, a clone, an empty repository.

/** What remotes the operator allows (config `git`). */
export function remotePolicy(settings: Settings): RemotePolicy {
  return { allowLocalRemotes: settings.git?.allowLocalRemotes ?? false, allowHttp: settings.git?.allowHttp ?? false };
}

/** The acting member as a commit's author. */
async function author(ctx: Pick<Context, "db" | "actor">): Promise<{ name: string; email: string }> {
  const user = await ctx.db.user.findUnique({ where: { id: ctx.actor.userId }, select: { name: true, email: true } });
  return { name: user?.name || "Parley", email: user?.email ?? "parley@localhost" };
}

/**
 * Makes a registered folder a git repository without changing or losing anything: when it
 * has no `.git` of its own, `git init` (branch main) and one commit of every file its
 * `.gitignore` files do not ignore, as they are (no line-ending or other conversion).
 * Git writes only inside the new `.git`: no file of the folder is rewritten, moved or
 * removed, and ignored files stay where they are, uncommitted. A folder that is already
 * a repository is left as it is. Returns the branch HEAD names.
 */
async function adopt(ctx: Pick<Context, "db" | "actor" | "settings">, directory: string): Promise<string | null> {
  return makeRepository(ctx.settings, directory, await author(ctx));
}

/** A new folder's name in the projects root: one segment. */
const FolderName = refuseNul(z.string().trim().min(1).max(100), "a folder name").refine(
  (name) => /^[A-Za-z0-9._-]+$/.test(name) && name !== "." && name !== ".." && !name.startsWith("-"),
  "A folder name uses letters, digits, '.', '_' and '-' (one folder, not a path).",
);

/**
 * A new, empty folder `name` directly in the projects root (CONFLICT when it exists): the
 * folder of a clone or an empty project. Refused when it would reach Parley's own data.
 */
async function newFolder(ctx: Pick<Context, "settings">, rootDirectory: string, name: string): Promise<string> {
  const root = await realDirectory(rootDirectory, "The projects root");
  const directory = path.join(root, FolderName.parse(name));
  if (await reachesParleyData(directory, root, ctx.settings.forbidden)) throw ParleyError.invalid(`${name} overlaps Parley's own data: choose another name`);
  try {
    await mkdir(directory, { mode: 0o755 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new ParleyError("CONFLICT", `A folder named ${name} already exists in the projects root: choose another name.`);
    throw error;
  }
  return directory;
}

/** Inserts the project of a folder this request made; the folder goes when that fails. */
async function insertMade(ctx: Pick<Context, "db">, project: NewProject, name: string): Promise<Info> {
  try {
    return await ctx.db.$transaction((tx) => insert(tx, project, name));
  } catch (error) {
    await rm(project.directory, { recursive: true, force: true });
    throw error;
  }
}

const UserName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((user) => !/[\s:\x00-\x1f\x7f]/.test(user), "A user name has no spaces, colons or control characters.");

const PullRequestUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .refine((url) => url.includes("{branch}"), "The pull request link holds {branch} where the branch name goes.");

export const CloneInput = z.object({
  /** https://…, ssh://…, git@host:org/repo (file:// or a path when the operator allows it); never with credentials. */
  url: refuseNul(z.string().trim().min(1).max(2000), "a repository URL"),
  /** The team secret holding a token or password (https) or a deploy key (ssh). */
  credential: Secrets.Name.optional(),
  /** The user name sent with a token or password (default "x-access-token"). */
  user: UserName.optional(),
  /** The new folder in the projects root (default: the repository's name). */
  folder: FolderName.optional(),
  name: refuseNul(z.string().trim().min(1).max(100), "a project name").optional(),
  pullRequestUrl: PullRequestUrl.optional(),
});
export type CloneInput = z.infer<typeof CloneInput>;

/** The user name sent with a token when none is given: what GitHub, GitLab and Gitea accept. */
export const DEFAULT_GIT_USER = "x-access-token";

/** The credential git gets for a project's remote, from the team secret it names. */
export async function credentialFor(
  ctx: Pick<Context, "db" | "keyring" | "actor">,
  remote: Remote,
  name: string | null | undefined,
  user: string | null | undefined,
): Promise<Credential | undefined> {
  const transport = remote.transport;
  if (!name) return undefined;
  const kind = await Secrets.kindOf(ctx, ctx.actor.teamId, name);
  if (!kind) throw ParleyError.invalid(`The team has no secret named ${name}.`);
  if (transport === "ssh") {
    if (kind !== "ssh-key") throw ParleyError.invalid(`An ssh:// remote needs a deploy key: secret ${name} is a ${kind}, not an ssh-key.`);
    return { kind: "ssh-key", key: await Secrets.reveal(ctx, ctx.actor.teamId, name) };
  }
  if (transport === "https" || transport === "http") {
    if (kind !== "git-token" && kind !== "git-password") throw ParleyError.invalid(`An https:// remote needs a git-token or git-password secret: ${name} is a ${kind}.`);
    const password = await Secrets.reveal(ctx, ctx.actor.teamId, name);
    // git's credential protocol is line-based: a line break would end the password early.
    if (/[\r\n]/.test(password)) throw ParleyError.invalid(`Secret ${name} holds a line break: a token or password is one line.`);
    const url = new URL(remote.url);
    return { kind: "basic", protocol: transport, host: url.host, user: user ?? DEFAULT_GIT_USER, password };
  }
  throw ParleyError.invalid(`A ${transport} remote takes no credential.`);
}

/**
 * Clones a repository into a new folder of the projects root (owners and admins): the
 * project's default branch is the remote's HEAD branch. The credential (a team secret's
 * name) reaches only this server's git process (git.ts); on any failure the folder goes.
 */
export async function clone(ctx: Context, input: CloneInput, options: { root: string }): Promise<Info> {
  await requireRole(ctx, ADMIN_ROLES, "add projects");
  const parsed = CloneInput.parse(input);
  const allowed = remotePolicy(ctx.settings);
  const remote = parseRemote(parsed.url, allowed);
  const credential = await credentialFor(ctx, remote, parsed.credential, parsed.user);
  const folder = parsed.folder ?? remote.name;
  if (!FolderName.safeParse(folder).success) throw ParleyError.invalid(`Choose a folder name for ${remote.name} (letters, digits, '.', '_' and '-').`);
  const directory = await newFolder(ctx, options.root, folder);
  const git = projectGit(ctx.settings);
  let defaultBranch: string | null;
  try {
    await git.run(
      ["clone", "-q", "--origin", "origin", "--no-recurse-submodules", "--", remote.url, directory],
      { cwd: path.dirname(directory), protocols: allowedProtocols(allowed), ...(credential ? { credential } : {}) },
      `Cloning ${remote.url}`,
    );
    defaultBranch = await headBranch(git, directory);
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return insertMade(
    ctx,
    {
      teamId: ctx.actor.teamId,
      name: parsed.name ?? folder,
      directory,
      source: "clone",
      gitUrl: remote.url,
      ...(defaultBranch ? { defaultBranch } : {}),
      ...(parsed.credential ? { credential: parsed.credential } : {}),
      ...(parsed.user ? { gitUser: parsed.user } : {}),
      ...(parsed.pullRequestUrl ? { pullRequestUrl: parsed.pullRequestUrl } : {}),
    },
    folder,
  );
}

export const CreateEmptyInput = z.object({ folder: FolderName, name: refuseNul(z.string().trim().min(1).max(100), "a project name").optional() });
export type CreateEmptyInput = z.infer<typeof CreateEmptyInput>;

/** A new folder in the projects root holding a new repository: one empty commit on main, by the admin (owners and admins). */
export async function createEmpty(ctx: Context, input: CreateEmptyInput, options: { root: string }): Promise<Info> {
  await requireRole(ctx, ADMIN_ROLES, "add projects");
  const parsed = CreateEmptyInput.parse(input);
  const directory = await newFolder(ctx, options.root, parsed.folder);
  const git = projectGit(ctx.settings);
  const call = { cwd: directory, protocols: "", author: await author(ctx) };
  try {
    await git.run(["init", "-q", "-b", "main"], call, "Making the repository");
    await git.run(["commit", "-q", "--allow-empty", "--no-verify", "-m", "Initial commit"], call, "The first commit");
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return insertMade(ctx, { teamId: ctx.actor.teamId, name: parsed.name ?? parsed.folder, directory, source: "empty", defaultBranch: "main" }, parsed.folder);
}

/** The project's branches: its own and its remote's (origin/…), by name, once each (none when it is no repository). */
async function branchNames(ctx: Pick<Context, "settings">, directory: string): Promise<string[]> {
  if (!(await isRepository(directory))) return [];
  const out = await projectGit(ctx.settings).run(
    ["for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes/origin"],
    { cwd: directory, protocols: "" },
    "Listing branches",
  );
  const names = new Set<string>();
  for (const ref of out.split("\n")) {
    const name = ref.startsWith("refs/heads/") ? ref.slice(11) : ref.startsWith("refs/remotes/origin/") ? ref.slice(20) : "";
    if (name && name !== "HEAD") names.add(name);
  }
  return [...names].sort();
}

/** A project's branches (any member). */
export async function branches(ctx: Context, projectId: string): Promise<string[]> {
  const row = await projectRow(ctx, projectId);
  return branchNames(ctx, row.directory);
}

/** Fetches of one project run one at a time in this process (git's ref locks would refuse a second). */
const fetching = new Map<string, Promise<unknown>>();

/**
 * Brings the remote's branches up to date (any member: the remote and its credential are
 * the admins' choice). The remote git never runs in the project's repository, whose
 * configuration the agent can change (a `url.*.insteadOf` would send the credential
 * elsewhere): it fetches into a new bare repository of the server's, borrowing the
 * project's objects, from the stored URL; the project then fetches from that one locally,
 * into `origin/…` (its own branches and files are not touched).
 */
export async function fetch(ctx: Context, projectId: string): Promise<{ branches: string[] }> {
  const row = await projectRow(ctx, projectId);
  if (!row.gitUrl) throw ParleyError.invalid(`${row.name} has no remote to fetch from.`);
  const gitUrl = row.gitUrl;
  const previous = fetching.get(row.id) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(async () => {
    const allowed = remotePolicy(ctx.settings);
    const remote = parseRemote(gitUrl, allowed);
    const credential = await credentialFor(ctx, remote, row.credential, row.gitUser);
    const git = projectGit(ctx.settings);
    const staging = await git.staging();
    try {
      await git.run(["init", "-q", "--bare", staging], { cwd: path.dirname(staging), protocols: "" }, "Preparing the fetch");
      const objects = path.join(row.directory, ".git", "objects");
      if (await stat(objects).then((s) => s.isDirectory(), () => false)) await git.alternates(staging, objects);
      await git.run(
        ["fetch", "-q", "--no-tags", "--no-recurse-submodules", "--", remote.url, "+refs/heads/*:refs/heads/*"],
        { cwd: staging, protocols: allowedProtocols(allowed), ...(credential ? { credential } : {}) },
        `Fetching ${remote.url}`,
      );
      await git.run(["fetch", "-q", "--prune", "--no-tags", "--no-recurse-submodules", "--", staging, "+refs/heads/*:refs/remotes/origin/*"], { cwd: row.directory, protocols: "file" }, "Updating the project's branches");
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    return { branches: await branchNames(ctx, row.directory) };
  });
  fetching.set(row.id, run);
  try {
    return await run;
  } finally {
    if (fetching.get(row.id) === run) fetching.delete(row.id);
  }
}

export const SetDefaultBranchInput = z.object({ projectId: z.string(), branch: refuseNul(z.string().trim().min(1).max(255), "a branch name") });

/** Changes the branch sessions start from (owners and admins); it must be one of the project's branches. */
export async function setDefaultBranch(ctx: Context, projectId: string, branch: string): Promise<Info> {
  await requireRole(ctx, ADMIN_ROLES, "change a project's default branch");
  const row = await projectRow(ctx, projectId);
  const names = await branchNames(ctx, row.directory);
  if (!names.includes(branch)) throw ParleyError.invalid(`${row.name} has no branch named ${branch}: fetch first if it is new on the remote.`);
  return info(await ctx.db.project.update({ where: { id: row.id }, data: { defaultBranch: branch } }));
}

/** Unregisters a project (owners and admins only); refused while sessions use it. Its files and its workspaces' store (the session branches) stay; its spare trees go. */
export async function remove(ctx: Context, projectId: string): Promise<void> {
  await requireRole(ctx, ADMIN_ROLES, "remove projects");
  const row = await projectRow(ctx, projectId);
  const sessions = await ctx.db.session.count({ where: { projectId: row.id } });
  if (sessions > 0) throw new ParleyError("CONFLICT", `${row.name} still has ${sessions} session${sessions === 1 ? "" : "s"}: delete them first`);
  await ctx.db.project.delete({ where: { id: row.id } });
  await ctx.workspaces.spares.forget(row.id);
}
