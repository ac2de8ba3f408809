import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { Bus } from "../server/bus/bus";
import { type Db, createDb } from "../server/db/client";
import { applyMigrations } from "../server/db/migrate";
import * as Id from "../server/id";
import { type Context, type Services, withActor } from "../server/services";
import { testServices } from "./runtime";

/** Helpers for integration tests against the embedded PostgreSQL of the test run. */

export const databaseUrl = (): string => inject("databaseUrl");

let shared: Db | undefined;
export function testDb(): Db {
  shared ??= createDb(databaseUrl(), { max: 4 });
  return shared;
}

/**
 * The test database with `hook` told of every raw statement of one kind (`$queryRaw` or
 * `$executeRaw`: its SQL, `?` for each value, and the values) before it runs; a promise the
 * hook returns stands in for the statement (e.g. a rejection: the write failed).
 */
export function hookedDb(method: "$queryRaw" | "$executeRaw", hook: (sql: string, values: unknown[]) => Promise<never> | undefined): Db {
  const db = testDb();
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (prop !== method || typeof value !== "function") return value;
      return (sql: TemplateStringsArray, ...values: unknown[]) => hook(sql.join("?"), values) ?? (value as (...a: unknown[]) => Promise<unknown>).call(target, sql, ...values);
    },
  });
}

export interface TeamFixture {
  teamId: string;
  userId: string;
  projectId: string;
  ctx: Context;
}

/** A fresh team with one member and one project, isolated from every other test. */
export async function makeTeam(options: { bus?: Bus; db?: Db; directory?: string; services?: Services } = {}): Promise<TeamFixture> {
  const services = options.services ?? testServices(options.bus ?? new Bus(), options.db ? { db: options.db } : {});
  const db = services.db;
  const teamId = Id.ascending("team");
  const userId = Id.ascending("user");
  const projectId = Id.ascending("project");
  await db.team.create({ data: { id: teamId, name: `Team ${teamId}`, slug: teamId } });
  await db.user.create({ data: { id: userId, email: `${userId}@test.local`, name: "Tester" } });
  await db.membership.create({ data: { teamId, userId, role: "owner" } });
  // A real folder: a session's first tool makes its workspace from the project's repository (made from the folder).
  const directory = options.directory ?? mkdtempSync(path.join(os.tmpdir(), `parley-project-${projectId}-`));
  await db.project.create({ data: { id: projectId, teamId, name: "project", directory } });
  return { teamId, userId, projectId, ctx: withActor(services, { userId, teamId }) };
}

export interface OwnDatabase {
  url: string;
  drop(): Promise<void>;
}

let databases = 0;
/**
 * A fresh, migrated database in the test cluster, for a test that needs one to itself
 * (a process runtime that recovers every session it finds, "the first user of an install").
 */
export async function ownDatabase(label: string): Promise<OwnDatabase> {
  const name = `parley_${label}_${process.pid}_${Date.now()}_${databases++}`;
  const admin = new pg.Client({ connectionString: databaseUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(databaseUrl());
  url.pathname = `/${name}`;
  await applyMigrations(url.toString());
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: databaseUrl() });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
