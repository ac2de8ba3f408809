import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "../errno";
import { readInside } from "./read-inside";

/**
 * Refs of a git directory read without running git, where that is sure: a new session
 * costs a few git processes less (each one a process of the process helper, several
 * milliseconds of CPU).
 *
 * Only the "files" ref store is read (loose ref files, then `packed-refs`); a directory
 * using another (`reftable/`), a symbolic ref, or anything that is not plainly an object
 * id gives `undefined`: the caller asks git. Files are read without following a link and
 * never block (readInside: a FIFO named like a ref is no ref).
 */

const OBJECT_ID = /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/;

/** A ref's object id; `null` when the ref surely does not exist; `undefined` when only git can say. */
export async function readRef(gitDir: string, ref: string): Promise<string | null | undefined> {
  if (await exists(path.join(gitDir, "reftable"))) return undefined;
  return fileRef(gitDir, ref);
}

/** readRef in a git directory known to use the "files" ref store. */
async function fileRef(gitDir: string, ref: string): Promise<string | null | undefined> {
  if (!/^refs\/[A-Za-z0-9._/-]+$/.test(ref) || ref.split("/").some((part) => part === "" || part === "." || part === "..")) return undefined;
  const loose = await readInside(gitDir, ref.split("/"));
  if (loose === undefined) return undefined;
  if (loose !== null) return OBJECT_ID.exec(loose.toString("latin1"))?.[1];
  // No loose file: the packed refs, or none.
  const packed = await readInside(gitDir, ["packed-refs"], { maxBytes: 64 * 1024 * 1024 });
  if (packed === undefined) return undefined;
  if (packed === null) return null;
  const suffix = ` ${ref}`;
  for (const line of packed.toString("latin1").split("\n")) {
    if (!line.endsWith(suffix)) continue;
    const id = line.slice(0, line.length - suffix.length);
    return OBJECT_ID.test(id) ? id : undefined;
  }
  return null;
}

/**
 * The commit HEAD names: a detached object id, or the id of the `refs/heads/…` branch it
 * points to (read as readRef reads it). `undefined` when only git can say (no HEAD file,
 * an unborn branch, a ref of another kind, another ref store).
 */
export async function readHead(gitDir: string): Promise<string | undefined> {
  if (await exists(path.join(gitDir, "reftable"))) return undefined;
  const head = await readInside(gitDir, ["HEAD"]);
  if (!head) return undefined;
  const text = head.toString("latin1");
  const detached = OBJECT_ID.exec(text)?.[1];
  if (detached) return detached;
  const branch = /^ref: (refs\/heads\/[^\n]+)\n?$/.exec(text)?.[1];
  if (!branch) return undefined;
  return (await fileRef(gitDir, branch)) ?? undefined;
}

async function exists(target: string): Promise<boolean> {
  try {
    await fs.lstat(target);
    return true;
  } catch (error) {
    if (errorCode(error) === "ENOENT" || errorCode(error) === "ENOTDIR") return false;
    throw error;
  }
}

/**
 * Object ids git has said are commits, per object folder: an object never changes, so a
 * ref read above that points to one of them needs no `rev-parse …^{commit}`. Bounded.
 */
const commits = new Set<string>();
const MAX_COMMITS = 4096;

export function knownCommit(objects: string, id: string): boolean {
  return commits.has(`${objects}\0${id}`);
}

export function rememberCommit(objects: string, id: string): void {
  if (commits.size >= MAX_COMMITS) commits.clear();
  commits.add(`${objects}\0${id}`);
}
