import { describe, expect, it } from "vitest";
import { chatRows } from "./rows";
import type { Message, Part, WithParts } from "./types";

const S = "ses_fffffffffff0aaaaaaaaaaaaaa";
const mid = (n: number) => `msg_${n.toString(16).padStart(12, "0")}aaaaaaaaaaaaaa`;
const pid = (n: number) => `prt_${n.toString(16).padStart(12, "0")}aaaaaaaaaaaaaa`;

function user(n: number, parts: Part["type"][] = ["text"]): WithParts {
  const info: Message = { id: mid(n), sessionId: S, role: "user", time: { created: n }, agent: "build", model: { providerId: "p", modelId: "m" } };
  return {
    info,
    parts: parts.map((type, i) =>
      type === "compaction"
        ? { id: pid(n * 10 + i), sessionId: S, messageId: info.id, type: "compaction", auto: true }
        : { id: pid(n * 10 + i), sessionId: S, messageId: info.id, type: "text", text: `text ${n}` },
    ),
  };
}
function assistant(n: number, parent: number, summary = false): WithParts {
  return {
    info: {
      id: mid(n),
      sessionId: S,
      role: "assistant",
      parentId: mid(parent),
      providerId: "p",
      modelId: "m",
      agent: summary ? "compaction" : "build",
      path: { cwd: "/", root: "/" },
      ...(summary ? { summary: true } : {}),
      cost: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      time: { created: n },
    },
    parts: [],
  };
}

describe("chatRows", () => {
  it("folds a compaction's summary under its marker and keeps the store's objects", () => {
    const messages = [user(1), assistant(2, 1), user(3, ["compaction"]), assistant(4, 3, true), user(5), assistant(6, 5)];
    const rows = chatRows(messages);
    expect(rows.map((r) => [r.kind, r.key])).toEqual([
      ["message", mid(1)],
      ["message", mid(2)],
      ["compaction", mid(3)],
      ["message", mid(5)],
      ["message", mid(6)],
    ]);
    const compaction = rows[2];
    expect(compaction?.kind === "compaction" && compaction.request).toBe(messages[2]);
    expect(compaction?.kind === "compaction" && compaction.summary).toBe(messages[3]);
    expect(rows[0]?.kind === "message" && rows[0].message).toBe(messages[0]);
  });

  it("shows a marker without summary while it runs, and a summary whose marker is not loaded on its own", () => {
    expect(chatRows([user(3, ["compaction"])]).map((r) => r.kind)).toEqual(["compaction"]);
    expect(chatRows([assistant(4, 3, true), user(5)]).map((r) => r.kind)).toEqual(["message", "message"]);
  });

  it("a second summary of the same marker (a retried compaction) is its own row", () => {
    const rows = chatRows([user(3, ["compaction"]), assistant(4, 3, true), assistant(5, 3, true)]);
    expect(rows.map((r) => r.key)).toEqual([mid(3), mid(5)]);
  });
});
