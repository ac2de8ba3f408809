"use client";

import { useMutation } from "@tanstack/react-query";
import type { SessionInfo } from "@/components/session/types";
import { UnifiedDiff } from "@/components/parts/diff-view";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/feedback";
import { requestErrorMessage } from "./composer";
import { filesOfDiff } from "./revert";

/**
 * Shown while a session is reverted: how many messages are hidden, Unrevert, and the
 * files and diff the revert undid. The next message sent makes the revert final.
 */
export function RevertBanner({ session, hidden, busy }: { session: SessionInfo; hidden: number; busy: boolean }) {
  const trpc = useTRPC();
  const unrevert = useMutation(trpc.session.unrevert.mutationOptions());
  const revert = session.revert;
  if (!revert) return null;
  const diff = revert.diff ?? "";
  const files = filesOfDiff(diff);
  return (
    <div role="status" data-testid="revert-banner" className="space-y-2 rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <span className="font-semibold" data-testid="revert-count">
          {hidden} {hidden === 1 ? "message" : "messages"} reverted
        </span>
        <span className="text-amber-800">
          {files.length > 0 ? `${files.length} ${files.length === 1 ? "file" : "files"} restored. ` : ""}Your next message makes this final.
        </span>
        <Button size="sm" className="ml-auto" data-testid="unrevert" disabled={busy || unrevert.isPending} onClick={() => unrevert.mutate({ sessionId: session.id })}>
          {unrevert.isPending ? <Spinner className="size-3.5" /> : null}
          Unrevert
        </Button>
      </div>
      {files.length > 0 ? (
        <details className="group">
          <summary className="cursor-pointer text-xs font-medium text-amber-800 hover:text-amber-950">Files and changes the revert undid</summary>
          <ul className="mt-2 font-mono text-xs" data-testid="revert-files">
            {files.map((file) => (
              <li key={file}>{file}</li>
            ))}
          </ul>
          <div className="mt-2">
            <UnifiedDiff diff={diff} headers />
          </div>
        </details>
      ) : null}
      {unrevert.error ? (
        <p role="alert" className="text-xs text-red-700">
          Could not unrevert: {requestErrorMessage(unrevert.error)}
        </p>
      ) : null}
    </div>
  );
}
