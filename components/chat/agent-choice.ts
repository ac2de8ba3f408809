/**
 * The agent a message is sent with: the one picked in the composer, else the one the last
 * message used, else the session's, else the first offered (build) — the first of these
 * still offered. Tab in the empty composer cycles through them, as OpenCode's does.
 */

import type { ListKeyInput } from "./list-keys";

export function chooseAgent(offered: readonly string[], candidates: { picked?: string | undefined; lastUsed?: string | undefined; session?: string | undefined }): string | undefined {
  for (const name of [candidates.picked, candidates.lastUsed, candidates.session]) {
    if (name !== undefined && offered.includes(name)) return name;
  }
  return offered[0];
}

/** The agent `step` places after `current` (before it when negative), wrapping around. */
export function cycleAgent(offered: readonly string[], current: string | undefined, step: 1 | -1): string | undefined {
  if (offered.length === 0) return undefined;
  const at = current === undefined ? -1 : offered.indexOf(current);
  if (at === -1) return offered[step === 1 ? 0 : offered.length - 1];
  return offered[(at + step + offered.length) % offered.length];
}

/**
 * Tab (forwards) or Shift+Tab (backwards) in the empty message box cycles the agent; not once
 * Escape has released the box (`released`), so the keyboard can always leave it: Esc, then Tab.
 */
export function agentCycleStep(event: ListKeyInput, state: { empty: boolean; released: boolean }): 1 | -1 | undefined {
  if (event.key !== "Tab" || !state.empty || state.released) return undefined;
  if (event.altKey || event.ctrlKey || event.metaKey || event.composing) return undefined;
  return event.shiftKey ? -1 : 1;
}
