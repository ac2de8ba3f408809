import type { Db } from "../../server/db/client";
import * as Id from "../../server/id";
import { Message, Part } from "../../server/session/message";
import { messageData, partData } from "../../server/session/rows";
import { NO_TOKENS, assistantInfo } from "../../test/messages";
import { type Seeder, completedRead } from "./seed";

const BATCH = 1_000;

export interface LongSession {
  sessionId: string;
  /** Message ids, oldest first; even indexes are user messages ("Question n"), odd ones answers ("Answer n"). */
  messageIds: string[];
  /** The tool part in the newest answer whose output was pruned (time.compacted set). */
  prunedPartId: string;
}

/** The text of message n of a seeded long session, so a test can find it on the page. */
export const questionText = (n: number) => `Question ${n}: what does part ${n} of the project do?`;
export const answerText = (n: number) => `Answer ${n}: it handles step ${n} of the work.`;
export const PRUNED_OUTPUT = "pruned-output-line: kept for the reader";

/**
 * A session with `count` messages written in bulk (createMany in batches, a few seconds
 * for thousands), alternating a user question and an assistant answer with a text part
 * each. The newest answer also holds a completed `read` tool whose output was pruned.
 * Everything is valid by the session module's schemas. No events are published: the
 * page reads it all from the database.
 */
export async function seedLongSession(seed: Seeder, count: number, title: string): Promise<LongSession> {
  const session = await seed.session({ title });
  return writeLongSession(seed.db, session.id, count);
}

/** The messages and parts of seedLongSession, written into an existing (empty) session. */
export async function writeLongSession(db: Db, sessionId: string, count: number): Promise<LongSession> {
  const session = { id: sessionId };
  const start = Date.now() - count * 1_000;
  const messages: Message[] = [];
  const parts: Part[] = [];
  let parentId = "";
  let prunedPartId = "";
  for (let n = 0; n < count; n++) {
    const t = start + n * 1_000;
    const id = Id.ascending("message");
    if (n % 2 === 0) {
      parentId = id;
      messages.push(Message.parse({ id, sessionId: session.id, role: "user", time: { created: t }, agent: "build", model: { providerId: "offline", modelId: "parley-offline" } }));
      parts.push(Part.parse({ id: Id.ascending("part"), sessionId: session.id, messageId: id, type: "text", text: questionText(n) }));
      continue;
    }
    const path = { cwd: "/e2e", root: "/e2e" };
    const tokens = { ...NO_TOKENS, input: 1_200, output: 80 };
    messages.push(Message.parse(assistantInfo({ id, sessionId: session.id, parentId, providerId: "offline", modelId: "parley-offline", path, tokens, finish: "stop", time: { created: t, completed: t + 500 } })));
    if (n === count - 1) {
      prunedPartId = Id.ascending("part");
      const read = completedRead(`call_${n}`, "README.md", `${PRUNED_OUTPUT}\n# Sample project`, { start: t, end: t + 40, compacted: t + 900 });
      parts.push(Part.parse({ ...read, id: prunedPartId, sessionId: session.id, messageId: id }));
    }
    parts.push(Part.parse({ id: Id.ascending("part"), sessionId: session.id, messageId: id, type: "text", text: answerText(n), time: { start: t, end: t + 400 } }));
  }
  await insertBulk(db, messages, parts);
  return { sessionId: session.id, messageIds: messages.map((m) => m.id), prunedPartId };
}

/** Writes `messages` and `parts` (valid by the session module's schemas) with createMany, `batch` rows a statement: no events. */
export async function insertBulk(db: Db, messages: Message[], parts: Part[], batch = BATCH): Promise<void> {
  for (let i = 0; i < messages.length; i += batch) {
    await db.message.createMany({
      data: messages.slice(i, i + batch).map((m) => ({ id: m.id, sessionId: m.sessionId, role: m.role, data: messageData(m), timeCreated: new Date(m.time.created) })),
    });
  }
  for (let i = 0; i < parts.length; i += batch) {
    await db.part.createMany({
      data: parts.slice(i, i + batch).map((p) => ({ id: p.id, messageId: p.messageId, sessionId: p.sessionId, type: p.type, data: partData(p) })),
    });
  }
}
