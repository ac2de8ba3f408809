"use client";

import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { isRunning } from "@/components/chat/session-status";
import type { Status, WithParts } from "@/components/chat/types";
import { SIGNAL_LABEL, type Signal, pageTitle, signalIcon, turnOutcome, waitingForApproval } from "./attention";
import { notify } from "./notifications";
import { useLatest } from "@/components/ui/use-latest";

function subscribeVisibility(listener: () => void): () => void {
  document.addEventListener("visibilitychange", listener);
  return () => document.removeEventListener("visibilitychange", listener);
}

/** Whether the page is hidden (another tab, a minimized window): the Page Visibility API. */
export function usePageHidden(): boolean {
  return useSyncExternalStore(subscribeVisibility, () => document.visibilityState === "hidden", () => false);
}

/**
 * Keep the document's title at `title`: the route's metadata renders a <title> of its own,
 * and the browser shows whichever <title> comes first in <head>, which may be that one,
 * written after this page's. So the shown title is set, and set again whenever <head>
 * changes it.
 */
function useDocumentTitle(title: string | undefined): void {
  useEffect(() => {
    if (title === undefined) return;
    const apply = () => {
      if (document.title !== title) document.title = title;
    };
    apply();
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [title]);
}

/**
 * The session page's signal while it is hidden: waiting for approval as long as a
 * question waits, else how the turn that ended meanwhile ended. Shown in the tab title and
 * the favicon and, when the member turned them on, by a browser notification; all of it
 * cleared as soon as the page is visible again.
 */
export function useAttention({ sessionId, title, status, messages }: { sessionId: string; title: string; status: Status; messages: readonly WithParts[] }): Signal | undefined {
  const hidden = usePageHidden();
  const running = isRunning(status);
  // A turn that ended while the page was hidden (set while rendering, from the previous render's values).
  const [seen, setSeen] = useState({ running, hidden });
  const [ended, setEnded] = useState<"finished" | "failed" | undefined>(undefined);
  if (seen.running !== running || seen.hidden !== hidden) {
    setSeen({ running, hidden });
    if (!hidden) setEnded(undefined);
    else if (seen.running && !running) setEnded(turnOutcome(messages));
    else if (running) setEnded(undefined);
  }
  const signal: Signal | undefined = !hidden ? undefined : waitingForApproval(messages) ? "approval" : ended;

  useDocumentTitle(title ? pageTitle(title, signal) : undefined);

  useEffect(() => {
    if (!signal) return;
    const icon = document.createElement("link");
    icon.rel = "icon";
    icon.href = signalIcon(signal);
    icon.dataset.signal = signal;
    document.head.append(icon);
    return () => icon.remove();
  }, [signal]);

  // Notified when a signal arises while the page is hidden: not for what the member saw
  // before leaving it (a question still waiting), nor again for a new title alone.
  const latestTitle = useLatest(title);
  const wasHidden = useRef(hidden);
  useEffect(() => {
    const justHidden = hidden && !wasHidden.current;
    wasHidden.current = hidden;
    if (signal && !justHidden) notify(SIGNAL_LABEL[signal], latestTitle.current, `parley-${sessionId}`);
  }, [signal, hidden, sessionId, latestTitle]);

  return signal;
}
