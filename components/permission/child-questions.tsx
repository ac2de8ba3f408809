"use client";

import Link from "next/link";
import { use, useCallback, useState } from "react";
import { Icon } from "@/components/parts/icons";
import { useSessionHref } from "@/components/parts/session-link";
import { InlineQuestionsContext } from "./inline";
import { PermissionCard } from "./permission-card";
import { usePermissionRequests } from "./use-permission-requests";

/**
 * The permission questions a subagent waits on, right below the task call that started it
 * (the call's metadata names the asking session: the child, or a subagent of it), so the
 * parent's page shows why the task does not go on and answers it there. Only on a
 * member's page (a share page has no questions); single keys stay with the open session's
 * own questions.
 */
export function ChildQuestions({ sessionId }: { sessionId: string }) {
  const questions = use(InlineQuestionsContext);
  if (!questions) return null;
  return <ChildQuestionList sessionId={sessionId} />;
}

function ChildQuestionList({ sessionId }: { sessionId: string }) {
  const { requests, forget } = usePermissionRequests(sessionId);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const bind = useCallback(() => undefined, []);
  const claimReveal = useCallback(() => false, []);
  const sessionHref = useSessionHref();
  if (requests.length === 0 && !notice) return null;
  return (
    <div data-testid="child-questions" data-session-id={sessionId} className="space-y-2 border-t border-amber-200 bg-amber-50/40 p-2.5">
      <p className="flex items-center gap-1.5 text-xs text-amber-900">
        <Icon name="alert" className="size-3.5 text-amber-600" />
        <span>
          The subagent waits for an answer.{" "}
          <Link href={sessionHref(sessionId)} className="font-medium text-indigo-700 hover:text-indigo-900">
            Open its session
          </Link>
        </span>
      </p>
      {notice ? (
        <p role="alert" data-testid="permission-reply-error" className="text-sm text-amber-900">
          {notice}
        </p>
      ) : null}
      {requests.map((request) => (
        <PermissionCard
          key={request.id}
          request={request}
          inline
          oldest={false}
          revealSeq={undefined}
          claimReveal={claimReveal}
          bind={bind}
          onAnswered={() => forget(request.id)}
          onGone={(message) => {
            forget(request.id);
            setNotice(message);
          }}
        />
      ))}
    </div>
  );
}
