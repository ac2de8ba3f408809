import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Db } from "../db/client";
import * as Id from "../id";
import type { Actor } from "../session/context";

/**
 * Until sign-in exists, one local user in one local team works in one default project.
 * Made on first start; later starts find them again by email and slug.
 */
export const LOCAL_EMAIL = "local@parley.local";
export const LOCAL_TEAM_SLUG = "local";

export interface LocalWorkspace {
  actor: Actor;
  projectId: string;
}

const SAMPLE_FILES: Record<string, string> = {
  "README.md": "# Sample project\n\nA small project for Parley's agent to work on.\n",
  "src/greet.ts": 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n',
  "src/math.ts": "export const add = (a: number, b: number): number => a + b;\n",
};

function seedProject(directory: string): void {
  if (existsSync(directory)) return;
  for (const [file, text] of Object.entries(SAMPLE_FILES)) {
    const full = path.join(directory, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}

export async function ensureLocalWorkspace(db: Db, projectDirectory: string): Promise<LocalWorkspace> {
  seedProject(projectDirectory);
  const user = await db.user.upsert({
    where: { email: LOCAL_EMAIL },
    create: { id: Id.ascending("user"), email: LOCAL_EMAIL, name: "Local user" },
    update: {},
  });
  const team = await db.team.upsert({
    where: { slug: LOCAL_TEAM_SLUG },
    create: { id: Id.ascending("team"), slug: LOCAL_TEAM_SLUG, name: "Local team" },
    update: {},
  });
  await db.membership.upsert({
    where: { teamId_userId: { teamId: team.id, userId: user.id } },
    create: { teamId: team.id, userId: user.id, role: "owner" },
    update: {},
  });
  const project = await db.project.upsert({
    where: { teamId_directory: { teamId: team.id, directory: projectDirectory } },
    create: { id: Id.ascending("project"), teamId: team.id, name: path.basename(projectDirectory), directory: projectDirectory },
    update: {},
  });
  return { actor: { userId: user.id, teamId: team.id }, projectId: project.id };
}
