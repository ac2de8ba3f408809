import { z } from "zod";
import * as Id from "../id";
import { refuseNul } from "../nul";
import { Ruleset } from "../permission/schema";
import { FileDiff, ModelRef, Tokens } from "./message";

/** Run status. */
export const Status = z.discriminatedUnion("type", [
  z.object({ type: z.literal("idle") }),
  z.object({ type: z.literal("busy") }),
  z.object({ type: z.literal("retry"), attempt: z.number().int().positive(), message: z.string(), next: z.number() }),
]);
export type Status = z.infer<typeof Status>;

/** Session. */
export const MAX_TITLE = 200;

export const Info = z.object({
  id: Id.schema("session"),
  teamId: z.string(),
  projectId: z.string(),
  directory: z.string(),
  /** The session's workspace (SPEC §15; its children share their root's); absent for sessions made before workspaces. */
  workspaceId: z.string().optional(),
  parentId: Id.schema("session").optional(),
  title: z.string(),
  slug: z.string(),
  version: z.string(),
  authorId: z.string(),
  agent: z.string().optional(),
  model: ModelRef.optional(),
  summary: z
    .object({
      additions: z.number().int(),
      deletions: z.number().int(),
      files: z.number().int(),
      diffs: z.array(FileDiff).optional(),
    })
    .optional(),
  share: z.object({ id: z.string(), url: z.string() }).optional(),
  cost: z.number().nonnegative(),
  tokens: Tokens,
  time: z.object({
    created: z.number(),
    updated: z.number(),
    compacting: z.number().optional(),
    archived: z.number().optional(),
  }),
  permission: Ruleset.optional(),
  /** Run status when read (live changes come as `session.status` events). */
  status: Status.optional(),
  revert: z
    .object({
      messageId: Id.schema("message"),
      partId: Id.schema("part").optional(),
      snapshot: z.string().optional(),
      diff: z.string().optional(),
    })
    .optional(),
});
export type Info = z.infer<typeof Info>;

export const Title = refuseNul(z.string().trim().min(1, "title is empty").max(MAX_TITLE, `title is longer than ${MAX_TITLE} characters`), "a title");

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;
/** "Nov 23, 2026, 17:53 UTC": readable by a person, the same for every reader (the server's time zone is nobody's). */
const READABLE_TITLE = new RegExp(String.raw`^(New session|Child session) - (${MONTHS.join("|")}) \d{1,2}, \d{4}, \d{2}:\d{2} UTC$`);
/** Titles given before readable ones: "New session - 2026-11-23T17:53:10.298Z" (still replaced by a generated title). */
const ISO_TITLE = /^(New session|Child session) - \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function readableTime(now: number): string {
  const at = new Date(now);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${MONTHS[at.getUTCMonth()]} ${at.getUTCDate()}, ${at.getUTCFullYear()}, ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
}

/**
 * The title a session has until a generated one replaces it: "New session - Nov 23, 2026,
 * 17:53 UTC" ("Child session - …" for a child).
 */
export function defaultTitle(isChild: boolean, now: number): string {
  return `${isChild ? "Child session" : "New session"} - ${readableTime(now)}`;
}

/** Whether a title is a default one (readable, or the ISO form of older sessions): a generated title may replace it. */
export function isDefaultTitle(title: string): boolean {
  return READABLE_TITLE.test(title) || ISO_TITLE.test(title);
}

/**
 * "<title> (fork #n)" → "(fork #n+1)"; any other title gets " (fork #1)". The base is
 * shortened when needed so the result stays within MAX_TITLE.
 */
export function forkTitle(title: string): string {
  const match = /^(.*) \(fork #(\d+)\)$/s.exec(title);
  const base = match ? (match[1] ?? "") : title;
  const suffix = ` (fork #${match ? Number(match[2]) + 1 : 1})`;
  return `${base.slice(0, MAX_TITLE - suffix.length).trimEnd()}${suffix}`;
}
