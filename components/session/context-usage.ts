import { type Limit, count, usable } from "@/lib/context-window";
import type { AssistantMessage, WithParts } from "@/components/chat/types";

/**
 * How full the model's context is, for the context meter: the tokens the last
 * finished assistant step put in the context — input + output + cache read + cache
 * write, as overflow detection counts them — against the usable part of the model's
 * window (its input limit, or context − output reserve), by the server's own arithmetic
 * (lib/context-window.ts).
 *
 * After a compaction the history the model sees is the summary, so a summary counts its
 * output only (its input was the history it replaced).
 */
export interface ContextUsage {
  /** Tokens in use; undefined before any assistant step finished. */
  used: number | undefined;
  /** Usable tokens; undefined when the model's context limit is unknown (0). */
  usable: number | undefined;
  /** used / usable, 0..∞; undefined when either is unknown. */
  ratio: number | undefined;
}

function lastFinished(messages: WithParts[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const info = messages[i]?.info;
    if (info?.role === "assistant" && (info.finish !== undefined || info.time.completed !== undefined) && !info.error) return info;
  }
  return undefined;
}

export function tokensInUse(messages: WithParts[]): number | undefined {
  const info = lastFinished(messages);
  if (!info) return undefined;
  return info.summary ? info.tokens.output : count(info.tokens);
}

export function contextUsage(messages: WithParts[], limit: Limit | undefined): ContextUsage {
  const used = tokensInUse(messages);
  const room = limit && limit.context > 0 ? usable(limit) : undefined;
  return { used, usable: room, ratio: used !== undefined && room !== undefined && room > 0 ? used / room : undefined };
}
