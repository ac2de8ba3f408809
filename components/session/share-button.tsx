"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, useSyncExternalStore } from "react";
import { absoluteUrl } from "@/components/share/types";
import { useTRPC } from "@/components/trpc/client";
import { Button, buttonClass } from "@/components/ui/button";
import { ErrorLine, Spinner } from "@/components/ui/feedback";
import type { SessionInfo } from "./types";

const noSubscription = () => () => {};
/** The page's origin once in the browser ("" while rendering on the server). */
function useOrigin(): string {
  return useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "",
  );
}

type Copy = "idle" | "copied" | "manual";

/**
 * Share / unshare a session and copy its link. Unsharing revokes the link for good:
 * sharing again afterwards makes a new URL. When the server's share mode is "disabled"
 * the button is off and says why (a link made before stays revocable).
 */
export function ShareButton({ session }: { session: SessionInfo }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const origin = useOrigin();
  const input = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<Copy>("idle");
  const mode = useQuery(trpc.share.mode.queryOptions());
  const onSuccess = (info: SessionInfo) => {
    queryClient.setQueryData(trpc.session.get.queryKey({ sessionId: info.id }), info);
    setCopy("idle");
    void queryClient.invalidateQueries({ queryKey: trpc.share.listShares.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.session.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.dashboard.list.pathKey() });
  };
  const share = useMutation(trpc.session.share.mutationOptions({ onSuccess }));
  const unshare = useMutation(trpc.session.unshare.mutationOptions({ onSuccess }));
  const pending = share.isPending || unshare.isPending;
  const error = share.error ?? unshare.error;
  const disabled = mode.data?.mode === "disabled";
  const url = session.share ? (origin ? absoluteUrl(session.share.url, origin) : session.share.url) : undefined;

  const copyLink = async () => {
    if (!url) return;
    try {
      await navigator.clipboard.writeText(url);
      setCopy("copied");
    } catch {
      // No clipboard access (permissions, an insecure origin): select the link so Ctrl+C copies it.
      input.current?.select();
      setCopy("manual");
    }
  };

  return (
    <section aria-label="Share" data-testid="share-controls" className="flex flex-col gap-2 rounded-xl bg-white px-3 py-2.5 shadow-sm ring-1 ring-zinc-200 sm:flex-row sm:items-center">
      {url ? (
        <>
          <span className="inline-flex shrink-0 items-center gap-1.5 text-sm font-medium text-indigo-700">
            <span className="size-2 rounded-full bg-indigo-500" aria-hidden="true" />
            Shared
          </span>
          <input
            ref={input}
            readOnly
            value={url}
            aria-label="Share link"
            data-testid="share-url"
            onFocus={(event) => event.currentTarget.select()}
            className="h-8 min-w-0 flex-1 rounded-lg border-0 bg-zinc-50 px-2.5 font-mono text-xs text-zinc-700 ring-1 ring-zinc-200 ring-inset focus:ring-2 focus:ring-indigo-600 focus:outline-none"
          />
          <div className="flex shrink-0 items-center gap-2">
            <Button size="sm" onClick={() => void copyLink()}>
              {copy === "copied" ? "Copied" : "Copy link"}
            </Button>
            <a href={url} target="_blank" rel="noopener noreferrer" className={buttonClass("ghost", "sm")}>
              Open
            </a>
            <Button
              size="sm"
              variant="ghost"
              className="text-red-600 hover:bg-red-50 hover:text-red-700"
              onClick={() => unshare.mutate({ sessionId: session.id })}
              disabled={pending}
              title="Revoke this link for good; sharing again makes a new link."
            >
              {unshare.isPending ? <Spinner className="size-3.5" /> : null}
              Unshare
            </Button>
          </div>
        </>
      ) : (
        <>
          <Button size="sm" onClick={() => share.mutate({ sessionId: session.id })} disabled={pending || disabled || mode.isPending}>
            {share.isPending ? <Spinner className="size-3.5" /> : null}
            Share
          </Button>
          <p data-testid="share-hint" className="text-xs text-zinc-500">
            {disabled
              ? "Sharing is disabled on this server (share mode “disabled”)."
              : "Anyone with the link can watch this session, read-only and live, without an account. Unsharing revokes the link for good; sharing again makes a new one."}
          </p>
        </>
      )}
      {copy === "manual" ? <p className="text-xs text-zinc-500">Press Ctrl+C (⌘C) to copy the selected link.</p> : null}
      <ErrorLine error={error} />
    </section>
  );
}
