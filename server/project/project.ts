import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
import type { Prisma } from "../db/client";
import { ParleyError } from "../errors";
import * as Id from "../id";
import { refuseNul } from "../nul";
import { projectRow } from "../session/access";
import type { Context } from "../services";

export const Info = z.object({ id: z.string(), teamId: z.string(), name: z.string(), directory: z.string() });
export type Info = z.infer<typeof Info>;

type Row = { id: string; teamId: string; name: string; directory: string };
const info = (row: Row): Info => ({ id: row.id, teamId: row.teamId, name: row.name, directory: row.directory });

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

/** Whether `child` is `parent` or lies below it (both absolute, normalized). */
function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

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
  if (!within(path.resolve(root), asWritten)) throw ParleyError.invalid(`${directory} is outside the projects root ${root}`);
  const real = await realDirectory(asWritten, "The directory");
  if (!within(realRoot, real)) throw ParleyError.invalid(`${directory} leads outside the projects root ${root} (through a symbolic link)`);
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
  return places.some((place) => within(directory, place) || (within(place, directory) && !within(place, root)));
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
    } else if (other.places.some((place) => within(place, project.directory) || within(project.directory, place))) {
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
  return ctx.db.$transaction((tx) => insert(tx, project, input.directory));
}

/** Unregisters a project (owners and admins only); refused while sessions use it. Its files stay. */
export async function remove(ctx: Context, projectId: string): Promise<void> {
  await requireRole(ctx, ADMIN_ROLES, "remove projects");
  const row = await projectRow(ctx, projectId);
  const sessions = await ctx.db.session.count({ where: { projectId: row.id } });
  if (sessions > 0) throw new ParleyError("CONFLICT", `${row.name} still has ${sessions} session${sessions === 1 ? "" : "s"}: delete them first`);
  await ctx.db.project.delete({ where: { id: row.id } });
}
