import type { Tone } from "@/components/ui/badge";

/**
 * How a session's workspace reads in the UI: its state as one small badge (lists and the
 * Changes panel), a diff split per file, outcomes of merge / update in words, sizes.
 * Pure: the server (server/workspace) is the source of truth for every value.
 */

/** A workspace as lists carry it (server/workspace/scope.ts WorkspaceBadge). */
export interface BadgeInput {
  state: "pending" | "ready" | "failed" | "removed";
  uncommitted: boolean;
  commits: "none" | "unpushed" | "pushed" | "merged";
}

export type WorkStateKey = "failed" | "uncommitted" | "unpushed" | "pushed" | "merged" | "none";

export interface WorkState {
  key: WorkStateKey;
  label: string;
  tone: Tone;
  title: string;
}

/**
 * Where the session's work stands, the most pressing first: a workspace that could not be
 * made, then changes not committed, then commits and how far they went.
 */
export function workState(badge: BadgeInput): WorkState {
  if (badge.state === "failed") return { key: "failed", label: "failed", tone: "red", title: "The workspace could not be made" };
  if (badge.uncommitted) return { key: "uncommitted", label: "uncommitted", tone: "amber", title: "Changes not committed yet" };
  switch (badge.commits) {
    case "unpushed":
      return { key: "unpushed", label: "unpushed", tone: "violet", title: "Commits not pushed or merged yet" };
    case "pushed":
      return { key: "pushed", label: "pushed", tone: "green", title: "The branch's last commit is pushed" };
    case "merged":
      return { key: "merged", label: "merged", tone: "indigo", title: "Merged into the default branch" };
    case "none":
      return { key: "none", label: "no changes", tone: "neutral", title: "Nothing changed on this branch yet" };
  }
}

/**
 * A unified diff of several files cut into one piece per file (each starting at its
 * `diff --git` line), keyed by the file's path as the server lists it. A piece whose path
 * is not in `files` is left out; a file without a piece (a cut, very long diff) has none.
 */
export function splitPatch(text: string, files: readonly string[]): Map<string, string> {
  const pieces: string[] = [];
  let current: string[] | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("diff --git ")) {
      if (current) pieces.push(current.join("\n"));
      current = [line];
    } else if (current) {
      current.push(line);
    }
  }
  if (current) pieces.push(current.join("\n"));
  const out = new Map<string, string>();
  for (const piece of pieces) {
    const header = piece.slice(0, piece.indexOf("\n") === -1 ? piece.length : piece.indexOf("\n"));
    const file = files.find((name) => header.endsWith(` b/${name}`) || header.endsWith(` "b/${name}"`));
    if (file !== undefined && !out.has(file)) out.set(file, piece.endsWith("\n") ? piece : `${piece}\n`);
  }
  return out;
}

export type Outcome = { kind: "merged" | "up-to-date" | "updated"; changedFiles?: string[] } | { kind: "conflict"; files: string[] };

/** What a merge or an update from the base did, in words. */
export function outcomeText(action: "merge" | "update", outcome: Outcome, target: string): string {
  if (outcome.kind === "conflict") {
    const n = outcome.files.length;
    return `${action === "merge" ? "Merging" : "Updating"} would conflict in ${n} ${n === 1 ? "file" : "files"}: nothing was changed.`;
  }
  if (outcome.kind === "up-to-date") return action === "merge" ? `${target} already has this branch's commits.` : `Already up to date with ${target}.`;
  if (outcome.kind === "merged") return `Merged into ${target}.`;
  const n = outcome.changedFiles?.length ?? 0;
  return `Brought in ${target}'s new commits${n > 0 ? ` (${n} ${n === 1 ? "file" : "files"} changed)` : ""}.`;
}

/** A byte count for people: 0 B, 812 B, 4.2 KB, 17 MB, 1.3 GB (powers of 1024). */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "—";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const shown = unit === 0 || value >= 10 ? Math.round(value).toString() : value.toFixed(1).replace(/\.0$/, "");
  return `${shown} ${units[unit]}`;
}

/** The badge of a full status (`workspace.status`), read the same way lists read theirs. */
export function statusBadge(status: { state: BadgeInput["state"]; uncommitted: boolean; commits: number; pushed: boolean; merged: boolean }): BadgeInput {
  const commits = status.commits === 0 ? "none" : status.merged ? "merged" : status.pushed ? "pushed" : "unpushed";
  return { state: status.state, uncommitted: status.uncommitted, commits };
}

/** A tRPC error's domain code (server/trpc/init.ts puts it in `data.parleyCode`): "BUSY", "NOT_FOUND", … */
export function parleyCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("data" in error)) return undefined;
  const data = error.data;
  if (typeof data !== "object" || data === null || !("parleyCode" in data)) return undefined;
  return typeof data.parleyCode === "string" ? data.parleyCode : undefined;
}
