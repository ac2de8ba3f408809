"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { ChildSessions } from "./child-sessions";

const sessionHref = (sessionId: string) => `/sessions/${sessionId}`;

/** Sessions started from this one (subagents), newest first. Hidden when there are none. */
export function ChildrenList({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const children = useQuery(trpc.session.children.queryOptions({ sessionId }));
  const list = children.data ?? [];
  if (list.length === 0) return null;
  return <ChildSessions sessions={list} href={sessionHref} headingId="children-heading" testId="children-list" />;
}
