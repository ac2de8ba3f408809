import { inject } from "vitest";
import { Bus } from "../server/bus/bus";
import { type Db, createDb } from "../server/db/client";
import * as Id from "../server/id";
import type { Context } from "../server/session/context";

/** Helpers for integration tests against the embedded PostgreSQL of the test run. */

export const databaseUrl = (): string => inject("databaseUrl");

let shared: Db | undefined;
export function testDb(): Db {
  shared ??= createDb(databaseUrl(), { max: 4 });
  return shared;
}

export interface TeamFixture {
  teamId: string;
  userId: string;
  projectId: string;
  ctx: Context;
}

/** A fresh team with one member and one project, isolated from every other test. */
export async function makeTeam(options: { bus?: Bus; db?: Db; directory?: string } = {}): Promise<TeamFixture> {
  const db = options.db ?? testDb();
  const bus = options.bus ?? new Bus();
  const teamId = Id.ascending("team");
  const userId = Id.ascending("user");
  const projectId = Id.ascending("project");
  await db.team.create({ data: { id: teamId, name: `Team ${teamId}`, slug: teamId } });
  await db.user.create({ data: { id: userId, email: `${userId}@test.local`, name: "Tester" } });
  await db.membership.create({ data: { teamId, userId, role: "owner" } });
  await db.project.create({ data: { id: projectId, teamId, name: "project", directory: options.directory ?? `/tmp/${projectId}` } });
  return { teamId, userId, projectId, ctx: { db, bus, actor: { userId, teamId } } };
}
