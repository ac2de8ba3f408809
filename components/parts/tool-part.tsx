"use client";

import { useState } from "react";
import type { PartOf } from "@/components/chat/types";
import { ChildQuestions } from "@/components/permission/child-questions";
import { ToolQuestion } from "@/components/permission/inline";
import { CardOpenContext } from "./card-open";
import { ToolCard, toolTitle } from "./tool-card";
import { toolRenderer } from "./tools/registry";

/** The session whose question a waiting task call reports (its child, or a subagent of it): metadata.asking.sessionId. */
function askingSession(part: PartOf<"tool">): string | undefined {
  const { state } = part;
  if (part.tool !== "task" || state.status !== "running" || !state.approval) return undefined;
  const asking = state.metadata?.asking;
  if (typeof asking !== "object" || asking === null || !("sessionId" in asking)) return undefined;
  return typeof asking.sessionId === "string" ? asking.sessionId : undefined;
}

/**
 * The chat's card of a tool call (tool-card.tsx), collapsed to one line until opened; the
 * body comes from the tool's renderer; the open question itself, on a member's page, right
 * below (it shows what is asked, so the card stays collapsed) — for a task call, the
 * question its subagent waits on. `forceOpen` keeps it open; the card stays open afterwards.
 */
export function ToolPartView({ part, forceOpen = false }: { part: PartOf<"tool">; forceOpen?: boolean }) {
  const { state } = part;
  const [opened, setOpened] = useState(false);
  const childAsking = askingSession(part);
  const open = opened || forceOpen;
  const renderer = toolRenderer(part.tool, state);
  const title = toolTitle(state, renderer);
  const Body = renderer.Body;
  return (
    <ToolCard
      part={part}
      renderer={renderer}
      title={title}
      progress={renderer.progress?.(state, part.metadata)}
      open={open}
      onToggle={setOpened}
      after={
        <>
          <ToolQuestion messageId={part.messageId} callId={part.callId} />
          {childAsking ? <ChildQuestions sessionId={childAsking} /> : null}
        </>
      }
    >
      <CardOpenContext value={open}>
        <Body part={part} state={state} input={state.input} title={title} />
      </CardOpenContext>
    </ToolCard>
  );
}
