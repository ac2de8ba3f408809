import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { ADMIN_ROLES, requireRole } from "../auth/roles";
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

async function realDirectory(directory: string, what: string): Promise<string> {
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
 * The canonical directory of a new project: inside `root` both as written (no `..` or
 * absolute path out of it) and once symbolic links are followed, an existing directory,
 * and not the root itself (which holds every team's projects).
 */
export async function resolveDirectory(root: string, directory: string): Promise<string> {
  const realRoot = await realDirectory(root, "The projects root");
  const asWritten = path.resolve(root, directory);
  if (!within(path.resolve(root), asWritten)) throw ParleyError.invalid(`${directory} is outside the projects root ${root}`);
  const real = await realDirectory(asWritten, "The directory");
  if (!within(realRoot, real)) throw ParleyError.invalid(`${directory} leads outside the projects root ${root} (through a symbolic link)`);
  if (real === realRoot) throw ParleyError.invalid(`Choose a folder inside the projects root ${root}, not the root itself`);
  return real;
}

/** Where project directories may be registered (a server path): for the owners and admins who register them. */
export async function root(ctx: Pick<Context, "db" | "actor">, options: { root: string }): Promise<{ root: string }> {
  await requireRole(ctx, ADMIN_ROLES, "see where projects are registered");
  return { root: options.root };
}

/**
 * Registers a project directory for the actor's team (owners and admins only). A
 * directory belongs to one team: one inside, around or equal to another team's project
 * is refused, so no team can reach another's files through a project.
 */
export async function create(ctx: Pick<Context, "db" | "actor">, input: CreateInput, options: { root: string }): Promise<Info> {
  await requireRole(ctx, ADMIN_ROLES, "register projects");
  const directory = await resolveDirectory(options.root, input.directory);
  const others = await ctx.db.project.findMany({ select: { teamId: true, directory: true } });
  for (const other of others) {
    if (other.teamId === ctx.actor.teamId && other.directory === directory) {
      throw new ParleyError("CONFLICT", `${directory} is already a project of this team`);
    }
    if (other.teamId !== ctx.actor.teamId && (within(other.directory, directory) || within(directory, other.directory))) {
      throw new ParleyError("CONFLICT", `${input.directory} overlaps a project of another team`);
    }
  }
  const row = await ctx.db.project.create({
    data: { id: Id.ascending("project"), teamId: ctx.actor.teamId, name: input.name ?? path.basename(directory), directory },
  });
  return info(row);
}

/** Unregisters a project (owners and admins only); refused while sessions use it. Its files stay. */
export async function remove(ctx: Context, projectId: string): Promise<void> {
  await requireRole(ctx, ADMIN_ROLES, "remove projects");
  const row = await projectRow(ctx, projectId);
  const sessions = await ctx.db.session.count({ where: { projectId: row.id } });
  if (sessions > 0) throw new ParleyError("CONFLICT", `${row.name} still has ${sessions} session${sessions === 1 ? "" : "s"}: delete them first`);
  await ctx.db.project.delete({ where: { id: row.id } });
}
