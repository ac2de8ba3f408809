import type { WithParts } from "@/components/chat/types";

/**
 * What a hidden session page says outside itself (tab title, favicon, a notification):
 * the agent waits for a person's approval, or its turn finished or failed while nobody
 * was looking. Pure rules here; `useAttention` applies them.
 */
export type Signal = "approval" | "finished" | "failed";

export const SIGNAL_LABEL: Record<Signal, string> = {
  approval: "Waiting for approval",
  finished: "Finished",
  failed: "Failed",
};

/** The favicon's dot for each signal (amber, green, red). */
export const SIGNAL_COLOR: Record<Signal, string> = {
  approval: "#d97706",
  finished: "#16a34a",
  failed: "#dc2626",
};

/** Whether a tool call (or a subagent's, through its task card) waits for a person to answer its permission question. */
export function waitingForApproval(messages: readonly WithParts[]): boolean {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.info.role !== "assistant") continue;
    if (message.parts.some((part) => part.type === "tool" && part.state.status === "running" && part.state.approval !== undefined)) return true;
  }
  return false;
}

/** How the last turn ended: failed when its reply carries an error other than being stopped. */
export function turnOutcome(messages: readonly WithParts[]): "finished" | "failed" {
  const info = messages.findLast((m) => m.info.role === "assistant")?.info;
  const error = info?.role === "assistant" ? info.error : undefined;
  return error && error.name !== "AbortedError" ? "failed" : "finished";
}

/** The tab title with the signal in front. */
export function signalTitle(signal: Signal | undefined, title: string): string {
  return signal ? `(${signal === "approval" ? "!" : signal === "failed" ? "✕" : "✓"}) ${SIGNAL_LABEL[signal]} · ${title}` : title;
}

/** A session page's tab title: the session's title, with the signal in front. */
export function pageTitle(sessionTitle: string, signal: Signal | undefined): string {
  return signalTitle(signal, `${sessionTitle} · Parley`);
}

/** A favicon: the letter P on a dot of the signal's colour (an SVG data URL). */
export function signalIcon(signal: Signal): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="${SIGNAL_COLOR[signal]}"/><text x="16" y="22" font-family="sans-serif" font-size="18" font-weight="700" text-anchor="middle" fill="#fff">P</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}
