import { modelsOf } from "../provider/team";
import type { Models, ResolvedModel, Services } from "../services";
import { isDefaultTitle } from "./info";
import * as LLM from "./llm";
import type { Part, WithParts } from "./message";
import { messageFromRow, partFromRow } from "./rows";
import * as Store from "./store";
import type { Message as MessageRow, Session as SessionRow, Share as ShareRow } from "../db/generated/client";
import { logger } from "../log";

const log = logger("session");

/**
 * Generated titles: after the first real user message of a root session whose
 * title is still the default one, a small/fast model names the session. It runs in the
 * background; a failure is retried once, then a readable fallback taken from the user's
 * message is written instead, so no session stays "New session - …". Child sessions and
 * sessions the user renamed are left alone — also when the rename happens while the
 * title is being generated: the write only replaces the default title it started from.
 */

export const TITLE_PROMPT = [
  "Generate a short title for the conversation that starts with the user's message below.",
  "Rules: at most 50 characters; the same language as the user's message; name the task or topic, not the user;",
  "no quotes, no trailing punctuation, no explanation; answer with the title only, on one line.",
].join("\n");

/** The longest title kept from the model. */
export const MAX_GENERATED = 100;
/** About how long a fallback title is (then "…"). */
export const FALLBACK_LENGTH = 50;
const INPUT_LIMIT = 8_000;
const TIMEOUT_MS = 60_000;
const RETRY_DELAY_MS = 500;

function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max).join("").trimEnd();
}

/**
 * The title in a model's answer: `<think>` blocks (and an unclosed one) removed, the
 * first non-empty line, without a "Title:" label, markdown emphasis or surrounding
 * quotes, cut to 100 characters. Undefined when nothing is left.
 */
export function cleanTitle(raw: string): string | undefined {
  const visible = raw.replace(/<think>[\s\S]*?<\/think>/gi, "").replace(/<think>[\s\S]*$/i, "");
  const line = visible
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== "");
  if (!line) return undefined;
  const title = line
    .replace(/^#+\s*/, "")
    .replace(/^title\s*:\s*/i, "")
    .replace(/^(\*\*|__)(.*)\1$/, "$2")
    .replace(/^["'“”‘’«»`]+|["'“”‘’«»`]+$/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return title === "" ? undefined : cut(title, MAX_GENERATED);
}

/** A readable title from the user's own words: the first line, cut near 50 characters with "…". */
export function fallbackTitle(text: string): string {
  const line =
    text
      .split(/\r?\n/)
      .map((l) => l.replace(/\s+/g, " ").trim())
      .find((l) => l !== "") ?? "";
  if (line === "") return "Untitled session";
  if (Array.from(line).length <= FALLBACK_LENGTH) return line;
  return `${cut(line, FALLBACK_LENGTH - 1)}…`;
}

/** The text of a user message the model is asked to name (real text only, and the prompt of a subtask the user started). */
export function userText(parts: Part[]): string {
  return parts
    .flatMap((p) => {
      if (p.type === "subtask") return [p.prompt];
      return p.type === "text" && !p.synthetic && !p.ignored && p.text.trim() !== "" ? [p.text] : [];
    })
    .join("\n\n");
}

/** Ask a model for a title once; rejects on a provider error or an empty answer. */
export async function ask(model: ResolvedModel, text: string, signal?: AbortSignal): Promise<string> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  const answer = await LLM.text({
    model,
    system: TITLE_PROMPT,
    messages: [{ role: "user", content: cut(text, INPUT_LIMIT) }],
    abortSignal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  const title = cleanTitle(answer);
  if (!title) throw new Error("the model returned no title");
  return title;
}

export interface TitleInput {
  teamId: string;
  sessionId: string;
  /** The user message that was just written. */
  messageId: string;
  /** What the caller has just read and written (prompt.ts): the session row and the message's parts, not read again. */
  known?: { session: SessionRow & { share: ShareRow | null }; parts: Part[] };
}

export interface TitleOptions {
  /** Pause before the one retry (default 500 ms). */
  retryDelayMs?: number;
}

export type TitleOutcome =
  | { kind: "skipped"; reason: "not-found" | "child" | "renamed" | "no-text" | "busy" }
  | { kind: "generated" | "fallback"; title: string; written: boolean };

const inFlight = new Set<string>();

/**
 * Name the session after a user message with real text (not synthetic), when it is a
 * root session still bearing its default title. The title is made from the session's
 * first real user message — normally the one just written; a later message only gets
 * here when an earlier attempt never finished (e.g. the server stopped meanwhile).
 */
export async function ensure(s: Services, input: TitleInput, options: TitleOptions = {}): Promise<TitleOutcome> {
  if (inFlight.has(input.sessionId)) return { kind: "skipped", reason: "busy" };
  inFlight.add(input.sessionId);
  try {
    return await generate(s, input, options);
  } finally {
    inFlight.delete(input.sessionId);
  }
}

async function generate(s: Services, input: TitleInput, options: TitleOptions): Promise<TitleOutcome> {
  const row = input.known?.session ?? (await s.db.session.findUnique({ where: { id: input.sessionId }, include: { share: true } }));
  if (!row) return { kind: "skipped", reason: "not-found" };
  if (row.parentId) return { kind: "skipped", reason: "child" };
  if (!isDefaultTitle(row.title)) return { kind: "skipped", reason: "renamed" };
  const written = input.known?.parts ?? (await s.db.part.findMany({ where: { messageId: input.messageId }, orderBy: { id: "asc" } })).map(partFromRow);
  if (userText(written) === "") return { kind: "skipped", reason: "no-text" };
  const first = await firstRealUserMessage(s, input.sessionId, { messageId: input.messageId, parts: written });
  if (!first || first.info.role !== "user") return { kind: "skipped", reason: "no-text" };
  const text = userText(first.parts);

  let title: string | undefined;
  for (let attempt = 1; attempt <= 2 && title === undefined; attempt++) {
    try {
      title = await ask(modelFor(await modelsOf(s, input.teamId), first.info.model), text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      log.error(`title generation for ${input.sessionId} failed (attempt ${attempt} of 2): ${reason}`);
      if (attempt === 1) await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? RETRY_DELAY_MS));
    }
  }
  const kind = title === undefined ? "fallback" : "generated";
  const chosen = title ?? fallbackTitle(text);
  // Only over the default title read above: a rename made meanwhile wins. The share link
  // is read with the changed row (one may have been made while the title was asked for).
  const changed = await Store.renameFrom(s, input.sessionId, row.title, chosen);
  return { kind, title: chosen, written: changed !== undefined };
}

/** The small model when there is one, else the model of the user's message. */
function modelFor(models: Models, ref: Parameters<Models["resolve"]>[0]): ResolvedModel {
  if (models.small) {
    try {
      return models.small();
    } catch (error) {
      log.error("the small model is not usable; titles use the session's model", error);
    }
  }
  return models.resolve(ref);
}

async function firstRealUserMessage(s: Services, sessionId: string, written: { messageId: string; parts: Part[] }): Promise<WithParts | undefined> {
  // User messages are few compared with parts: read them, then the parts of the candidates
  // (those of the message just written are known).
  const users = await s.db.$queryRaw<MessageRow[]>`
    SELECT id, "sessionId", role, "authorId", data, "timeCreated" FROM "Message" WHERE "sessionId" = ${sessionId} AND role = 'user' ORDER BY id LIMIT 50`;
  for (const row of users) {
    const parts = row.id === written.messageId ? written.parts : (await s.db.part.findMany({ where: { messageId: row.id }, orderBy: { id: "asc" } })).map(partFromRow);
    if (userText(parts) !== "") return { info: messageFromRow(row), parts };
  }
  return undefined;
}
