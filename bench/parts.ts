import * as Id from "../server/id";
import type { Message, Part } from "../server/session/message";
import { assistantInfo } from "../test/messages";

/** Seed content shared by the benchmarks: realistic, deterministic assistant turns. */

/** The model the seeded answers name, and the folder they worked in. */
export const BENCH_MODEL = { providerId: "openai", modelId: "gpt-bench" };
export const BENCH_PATH = { cwd: "/bench", root: "/bench" };

/** Forty deterministic words, different for each `i`. */
export function paragraph(i: number): string {
  const words = ["session", "part", "stream", "tool", "model", "answer", "patch", "file", "token", "prompt"];
  return Array.from({ length: 40 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(" ");
}

/**
 * The parts of one assistant turn: steps, reasoning, text, a read and a bash run — 9
 * parts, or 10 with `patch` (a patch part after the bash run).
 */
export function assistantParts(sessionId: string, messageId: string, i: number, t: number, options: { patch?: boolean } = {}): Part[] {
  const base = { sessionId, messageId };
  const tokens = { input: 1200, output: 300, reasoning: 40, cache: { read: 800, write: 0 } };
  const tool = (n: number): Part => ({
    ...base,
    id: Id.ascending("part"),
    type: "tool",
    callId: `call_${i}_${n}`,
    tool: n === 0 ? "read" : "bash",
    state: {
      status: "completed",
      input: n === 0 ? { path: `src/file${i % 50}.ts` } : { command: "npm test" },
      output: paragraph(i + n).repeat(3),
      title: n === 0 ? `src/file${i % 50}.ts` : "npm test",
      metadata: { exit: 0 },
      time: { start: t, end: t + 40 },
    },
  });
  return [
    { ...base, id: Id.ascending("part"), type: "step-start", snapshot: "4b825dc642cb6eb9a060e54bf8d69288fbee4904" },
    { ...base, id: Id.ascending("part"), type: "reasoning", text: paragraph(i), time: { start: t, end: t + 10 } },
    { ...base, id: Id.ascending("part"), type: "text", text: paragraph(i + 1), time: { start: t + 10, end: t + 20 } },
    tool(0),
    { ...base, id: Id.ascending("part"), type: "step-finish", reason: "tool-calls", cost: 0.0012, tokens },
    { ...base, id: Id.ascending("part"), type: "step-start" },
    tool(1),
    ...(options.patch
      ? [{ ...base, id: Id.ascending("part"), type: "patch" as const, hash: "4b825dc642cb6eb9a060e54bf8d69288fbee4904", files: [`src/file${i % 50}.ts`] }]
      : []),
    { ...base, id: Id.ascending("part"), type: "text", text: paragraph(i + 2), time: { start: t + 60, end: t + 70 } },
    { ...base, id: Id.ascending("part"), type: "step-finish", reason: "stop", cost: 0.0009, tokens },
  ];
}

/**
 * A conversation of `count` messages, one a second up to now: user questions and
 * assistant answers in turn (each answer with the parts of `assistantParts`).
 */
export function conversation(sessionId: string, count: number, options: { patch?: boolean } = {}): { messages: Message[]; parts: Part[] } {
  const messages: Message[] = [];
  const parts: Part[] = [];
  const start = Date.now() - count * 1000;
  let userId = "";
  for (let i = 0; i < count; i++) {
    const t = start + i * 1000;
    if (i % 2 === 0) {
      const user: Message = { id: Id.ascending("message"), sessionId, role: "user", time: { created: t }, agent: "build", model: BENCH_MODEL };
      userId = user.id;
      messages.push(user);
      parts.push({ id: Id.ascending("part"), sessionId, messageId: user.id, type: "text", text: `Question ${i}: ${paragraph(i)}` });
    } else {
      const tokens = { input: 2400, output: 600, reasoning: 80, cache: { read: 1600, write: 0 } };
      const assistant = assistantInfo({ id: Id.ascending("message"), sessionId, parentId: userId, ...BENCH_MODEL, path: BENCH_PATH, cost: 0.0021, tokens, finish: "stop", time: { created: t, completed: t + 900 } });
      messages.push(assistant);
      parts.push(...assistantParts(sessionId, assistant.id, i, t, options));
    }
  }
  return { messages, parts };
}
