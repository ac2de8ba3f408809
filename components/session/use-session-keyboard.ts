"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import type { Status, WithParts } from "@/components/chat/types";
import { useTRPC } from "@/components/trpc/client";
import { announce } from "@/components/ui/announce";
import { questionWaiting } from "@/components/permission/permission-prompt";
import { abortShortcut, stopsReply } from "@/components/ui/keyboard";
import { focusMessageBox } from "@/components/ui/shortcut-help";
import { replyAnnouncement } from "./reply-announcement";
import { useLatest } from "@/components/ui/use-latest";

/**
 * The session page's keyboard and screen-reader behaviour: the message box is focused when
 * the session opens (on devices with a fine pointer: on a phone that would pop the
 * keyboard over the conversation), Escape stops the agent while it works — unless a
 * permission question waits: Escape then goes to the question (PermissionPrompt) — and
 * Ctrl/⌘+. stops it in any case, and the end of every reply — finished, stopped or failed
 * — is announced.
 */
export function useSessionKeyboard({ sessionId, ready, status, messages }: { sessionId: string; ready: boolean; status: Status; messages: readonly WithParts[] }): void {
  const trpc = useTRPC();
  const { mutate: abort } = useMutation(
    trpc.session.abort.mutationOptions({
      onError: (error) => announce(`Could not stop the agent: ${error.message}`, "assertive"),
    }),
  );
  const running = status.type !== "idle";

  // Focus the message box once the session has loaded, unless the reader already moved on.
  useEffect(() => {
    if (!ready) return;
    const untouched = document.activeElement === null || document.activeElement === document.body;
    if (untouched && !window.matchMedia("(pointer: coarse)").matches) focusMessageBox();
  }, [sessionId, ready]);

  useEffect(() => {
    if (!running) return;
    const onKeyDown = (event: KeyboardEvent) => {
      const target = event.target instanceof Element ? event.target : null;
      if (!abortShortcut(event, true) && !stopsReply(event, target, true, questionWaiting())) return;
      event.preventDefault();
      announce("Stopping the agent…");
      abort({ sessionId });
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [running, sessionId, abort]);

  // When the session goes from working back to idle, say how the reply ended.
  const latest = useLatest(messages);
  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) announce(replyAnnouncement(latest.current));
    wasRunning.current = running;
  }, [running, latest]);
}
