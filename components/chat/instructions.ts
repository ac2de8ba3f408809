import type { AssistantMessage, Part, WithParts } from "./types";

/** One entry of a turn's "Instructions:" line. */
export interface InstructionEntry {
  label: string;
  kind: "team" | "project" | "file" | "url" | "server";
  /** Appended to a read result (a rule file of a folder the agent read in), not in the system prompt. */
  nested: boolean;
  cut: boolean;
  /** Why it was left out, when it was. */
  skipped?: string;
}

/**
 * What an answer's instructions line lists: the sources its system prompt held, in their
 * order, then the rule files its reads appended (each once); those left out come last,
 * with why.
 */
export function instructionEntries(info: AssistantMessage, parts: Part[]): InstructionEntry[] {
  const used: InstructionEntry[] = [];
  const skipped: InstructionEntry[] = [];
  const seen = new Set<string>();
  for (const source of info.instructions ?? []) {
    const entry: InstructionEntry = { label: source.label, kind: source.kind, nested: false, cut: source.cut === true, ...(source.skipped !== undefined ? { skipped: source.skipped } : {}) };
    if (entry.skipped !== undefined) {
      skipped.push(entry);
      continue;
    }
    seen.add(source.label);
    used.push(entry);
  }
  for (const part of parts) {
    if (part.type !== "tool" || part.tool !== "read" || part.state.status !== "completed") continue;
    const loaded = part.state.metadata.loaded;
    if (!Array.isArray(loaded)) continue;
    for (const label of loaded) {
      if (typeof label !== "string" || seen.has(label)) continue;
      seen.add(label);
      used.push({ label, kind: "file", nested: true, cut: false });
    }
  }
  return [...used, ...skipped];
}

/** The line's text: "Instructions: AGENTS.md, docs/rules.md, team" (the sources used, by name). */
export function instructionSummary(entries: InstructionEntry[]): string {
  const used = entries.filter((entry) => entry.skipped === undefined).map((entry) => entry.label);
  const left = entries.length - used.length;
  return `Instructions: ${used.length > 0 ? used.join(", ") : "none"}${left > 0 ? ` (${left} left out)` : ""}`;
}

/**
 * Answers whose line would only repeat the one above it: a later step of the same turn
 * whose prompt held the same sources (by name and digest) and whose reads appended none.
 * The first step of a turn shows its line; a later one only when something changed.
 */
export function repeatedInstructionLines(messages: WithParts[]): Set<string> {
  const repeated = new Set<string>();
  const lastOfTurn = new Map<string, string>();
  for (const message of messages) {
    const info = message.info;
    if (info.role !== "assistant") continue;
    const key = JSON.stringify([(info.instructions ?? []).map((source) => [source.label, source.sha256 ?? null, source.skipped ?? null]), info.toolWarning ?? null]);
    const nested = instructionEntries(info, message.parts).some((entry) => entry.nested);
    if (lastOfTurn.get(info.parentId) === key && !nested) repeated.add(info.id);
    lastOfTurn.set(info.parentId, key);
  }
  return repeated;
}
