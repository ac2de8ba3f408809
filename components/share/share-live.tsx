"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { type ReactNode, createContext, use, useEffect, useMemo, useRef, useState, useTransition } from "react";
import { type LiveEvent, useEventSource } from "@/components/events/use-event-source";
import { Button } from "@/components/ui/button";
import { type RefreshSchedule, refreshSchedule } from "./refresh-schedule";

/** At most this often (ms) the page is rendered again on the server while events come in. */
const REFRESH_EVERY_MS = 400;
/** A render this long (ms) after the last event, when what it announced is stored (refresh-schedule.ts). */
const SETTLE_MS = 300;

type Gone = "revoked" | "deleted";

const ConnectedContext = createContext(false);

/**
 * What keeps a share page live: its content is rendered on the server (markdown and code
 * included, app/share/[shareId]/page.tsx), so this island only listens to the link's
 * stream and has the server render the page again when something happened — a few times a
 * second at most while a reply streams, once more when the last event's change is stored
 * (refresh-schedule.ts), and once after each (re)connection. `share.revoked`
 * (or the shown session's deletion) replaces the page at once; a link that is gone for good
 * answers 404, which the next render shows.
 */
export function ShareLive({ shareId, sessionId, rootHref, children }: { shareId: string; sessionId: string; rootHref: string; children: ReactNode }) {
  const router = useRouter();
  const [connected, setConnected] = useState(false);
  const [gone, setGone] = useState<Gone>();
  const ended = useRef(false);
  const schedule = useRef<RefreshSchedule | undefined>(undefined);
  // Made per effect run (React runs effects twice in development: a stopped schedule stays stopped).
  useEffect(() => {
    const made = refreshSchedule(() => router.refresh(), { every: REFRESH_EVERY_MS, settle: SETTLE_MS });
    schedule.current = made;
    return () => made.stop();
  }, [router]);
  const handlers = useMemo(() => {
    // Once the link is revoked (or the session deleted) the page is not rendered again:
    // the notice stays (a new render would be the 404 page).
    const end = (why: Gone) => {
      ended.current = true;
      schedule.current?.stop();
      setGone(why);
    };
    const refresh = () => {
      if (!ended.current) schedule.current?.event();
    };
    return {
      onEvent: (event: LiveEvent) => {
        if (event.name === "share.revoked") end("revoked");
        else if (event.name === "session.deleted" && event.payload.info.id === sessionId) end("deleted");
        else if (event.name !== "stream.ready") refresh();
      },
      onOpen: (reconnect: boolean) => {
        setConnected(true);
        // What happened while the stream was down is read again.
        if (reconnect) refresh();
      },
      onError: () => {
        setConnected(false);
        refresh();
      },
    };
  }, [sessionId]);
  useEventSource(gone ? undefined : `/api/share/${encodeURIComponent(shareId)}/events`, handlers);

  if (gone === "revoked") {
    return (
      <Notice testId="share-revoked" title="This link was revoked">
        The owner stopped sharing this session. Ask them for a new link if you still need it.
      </Notice>
    );
  }
  if (gone === "deleted") {
    return (
      <Notice testId="share-deleted" title="This session was deleted">
        <Link href={rootHref} className="font-medium text-indigo-600 hover:text-indigo-800">
          Back to the shared session
        </Link>
      </Notice>
    );
  }
  return <ConnectedContext value={connected}>{children}</ConnectedContext>;
}

/** "Live" once the link's stream is open. */
export function ShareConnection() {
  const connected = use(ConnectedContext);
  return (
    <span data-testid="share-connection" data-connected={connected ? "true" : "false"} className="inline-flex items-center gap-1.5 text-zinc-500">
      <span className={`size-2 rounded-full ${connected ? "bg-emerald-500" : "bg-zinc-300"}`} aria-hidden="true" />
      {connected ? "Live" : "Connecting…"}
    </span>
  );
}

/** Shows `step` more of the older messages: the server renders them (the address keeps how many). */
export function LoadOlderButton({ href }: { href: string }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <Button size="sm" disabled={pending} onClick={() => startTransition(() => router.push(href, { scroll: false }))}>
      Load older messages
    </Button>
  );
}

function Notice({ testId, title, children }: { testId: string; title: string; children: ReactNode }) {
  return (
    <div role="alert" data-testid={testId} className="mx-auto max-w-md py-16 text-center">
      <h1 className="text-lg font-semibold text-zinc-900">{title}</h1>
      <p className="mt-2 text-sm text-zinc-500">{children}</p>
    </div>
  );
}
