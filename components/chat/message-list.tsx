"use client";

import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { type RefObject, memo, use, useCallback, useEffect, useEffectEvent, useLayoutEffect, useMemo, useRef, useState } from "react";
import { Icon } from "@/components/parts/icons";
import { InlineQuestionsContext } from "@/components/permission/inline";
import { Button } from "@/components/ui/button";
import { ErrorNotice, Loading, Spinner } from "@/components/ui/feedback";
import { CompactionRow } from "./compaction-row";
import { EmptySession } from "./empty-session";
import { repeatedInstructionLines } from "./instructions";
import { RepeatedInstructionsContext } from "./instructions-line";
import { MessageView } from "./message-view";
import { type RevertPoint, shownMessages } from "./revert";
import { type ChatRow, chatRows, estimateRowSize } from "./rows";
import type { LiveSession } from "./use-live-session";

/** Rows rendered beyond the viewport on each side. */
const OVERSCAN = 10;
/** Older messages are fetched when the top of the list comes this close (px) to the viewport. */
const LOAD_OLDER_MARGIN = 1_200;
/** Within this distance (px) of the end the view counts as "at the latest" and follows new output. */
const END_THRESHOLD = 80;

/**
 * The conversation, virtualized against the window's scroll: only the rows near the
 * viewport are in the DOM, each measured once rendered. It opens at the newest message
 * and follows new output while the reader is at the end (anchored to the end: streamed
 * text and new messages keep the view pinned there); scrolling up pauses that and shows
 * "Jump to latest". Older pages are fetched as the top comes near, and the message in
 * view keeps its place when they are prepended. While a permission question waits inside
 * a call, the view does not follow: it stays on the question (permission/inline.tsx).
 */
export function MessageList({ live, revert }: { live: LiveSession; revert?: RevertPoint | undefined }) {
  const { snapshot } = live;
  if (!snapshot.loaded) {
    if (snapshot.error) return <LoadError error={snapshot.error} onRetry={live.retry} />;
    return <Loading label="Loading messages…" />;
  }
  return <LoadedList live={live} revert={revert} />;
}

function LoadError({ error, onRetry }: { error: string; onRetry: () => void }) {
  return (
    <div className="space-y-2">
      <ErrorNotice title="Could not load messages">{error}</ErrorNotice>
      <Button size="sm" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}

function LoadedList({ live, revert }: { live: LiveSession; revert: RevertPoint | undefined }) {
  const { snapshot } = live;
  // Messages a revert hides are not shown (they stay stored until the next prompt).
  const revertMessage = revert?.messageId;
  const revertPart = revert?.partId;
  const rows = useMemo(
    () => chatRows(shownMessages(snapshot.messages, revertMessage ? { messageId: revertMessage, partId: revertPart } : undefined).messages),
    [snapshot.messages, revertMessage, revertPart],
  );
  const repeated = useMemo(() => repeatedInstructionLines(snapshot.messages), [snapshot.messages]);
  const compacting = live.info?.time.compacting !== undefined;
  const listRef = useRef<HTMLDivElement>(null);
  const margin = useListTop(listRef);

  // While a permission question waits, the view stays where the question is: new output
  // (another question below it, a queued message) does not pull it away from the reader.
  const questions = use(InlineQuestionsContext);
  const askingMessage = questions?.oldestMessageId;
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: (index) => estimateRowSize(rows[index]),
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: OVERSCAN,
    scrollMargin: margin,
    anchorTo: askingMessage ? "start" : "end",
    followOnAppend: true,
    scrollEndThreshold: END_THRESHOLD,
  });
  const { atEnd, jumpToLatest } = useFollowAndPage(virtualizer, listRef, live, rows.length > 0);
  useRevealAsking(virtualizer, rows, questions?.reveal);

  return (
    <div className="space-y-4">
      <ListTop live={live} />
      {snapshot.error ? <LoadError error={snapshot.error} onRetry={live.retry} /> : null}
      <CorruptRows rows={snapshot.corrupt} />
      {rows.length === 0 ? <EmptySession /> : null}
      <RepeatedInstructionsContext value={repeated}>
        <VirtualRows listRef={listRef} virtualizer={virtualizer} rows={rows} compacting={compacting} />
      </RepeatedInstructionsContext>
      {/* Not while a question waits: the view stays on it, and the button would cover its answers. */}
      {!atEnd && rows.length > 0 && !askingMessage ? <JumpToLatest onClick={jumpToLatest} /> : null}
    </div>
  );
}

type Virtualizer = ReturnType<typeof useWindowVirtualizer<Element>>;

/** Where the list starts in the page (the header above it may change height). */
function useListTop(listRef: RefObject<HTMLDivElement | null>): number {
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const measure = () => {
      const top = Math.round(list.getBoundingClientRect().top + window.scrollY);
      setMargin((current) => (current === top ? current : top));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => observer.disconnect();
  }, [listRef]);
  return margin;
}

/**
 * Opens the list at the newest message, follows the reader's scrolling (whether the view is
 * at the end) and fetches older pages as the top of the list comes near — only once the
 * view was positioned or the reader acted (before that, the window is still at the top).
 */
function useFollowAndPage(virtualizer: Virtualizer, listRef: RefObject<HTMLDivElement | null>, live: LiveSession, hasRows: boolean) {
  const { snapshot, loadOlder } = live;
  const [atEnd, setAtEnd] = useState(true);
  const positioned = useRef(false);
  const maybeLoadOlder = useCallback(() => {
    const list = listRef.current;
    if (!positioned.current || !list) return;
    if (list.getBoundingClientRect().top > -LOAD_OLDER_MARGIN) loadOlder();
  }, [loadOlder, listRef]);
  const settle = useCallback(() => {
    if (!positioned.current && virtualizer.isAtEnd()) positioned.current = true;
  }, [virtualizer]);
  useLayoutEffect(() => {
    if (!hasRows || positioned.current) return;
    virtualizer.scrollToEnd();
    const frame = requestAnimationFrame(() => {
      settle();
      maybeLoadOlder();
    });
    return () => cancelAnimationFrame(frame);
  }, [hasRows, virtualizer, settle, maybeLoadOlder]);
  useEffect(() => {
    let frame = 0;
    const onScroll = () => {
      if (frame) return;
      frame = requestAnimationFrame(() => {
        frame = 0;
        settle();
        setAtEnd(virtualizer.isAtEnd());
        maybeLoadOlder();
      });
    };
    // Whatever the reader does from here on, the top of the list may load older pages.
    const onIntent = () => {
      positioned.current = true;
    };
    const listeners: [string, EventListener, AddEventListenerOptions?][] = [
      ["scroll", onScroll, { passive: true }],
      ["resize", onScroll],
      ["wheel", onIntent, { passive: true }],
      ["touchstart", onIntent, { passive: true }],
      ["keydown", onIntent],
    ];
    for (const [name, listener, options] of listeners) window.addEventListener(name, listener, options);
    return () => {
      if (frame) cancelAnimationFrame(frame);
      for (const [name, listener] of listeners) window.removeEventListener(name, listener);
    };
  }, [virtualizer, settle, maybeLoadOlder]);
  // A page that arrived (or one that was too short to fill the view) may call for the next.
  useEffect(() => {
    if (!snapshot.loadingOlder) maybeLoadOlder();
  }, [snapshot.loadingOlder, snapshot.olderCursor, maybeLoadOlder]);
  const jumpToLatest = () => {
    virtualizer.scrollToEnd();
    setAtEnd(true);
  };
  return { atEnd, jumpToLatest };
}

/**
 * A permission question to bring into view in a message the list has not rendered (the
 * reader is far from it): its row is brought in; the question's card then shows itself whole.
 */
function useRevealAsking(virtualizer: Virtualizer, rows: ChatRow[], reveal: { seq: number; messageId: string } | undefined) {
  const showAsking = useEffectEvent((messageId: string) => {
    const index = rows.findIndex((row) => row.kind === "message" && row.message.info.id === messageId);
    if (index < 0 || virtualizer.getVirtualItems().some((item) => item.index === index)) return;
    virtualizer.scrollToIndex(index, { align: "end" });
  });
  const revealSeq = reveal?.seq;
  const revealMessage = reveal?.messageId;
  useEffect(() => {
    if (revealMessage !== undefined && revealSeq !== undefined) showAsking(revealMessage);
  }, [revealMessage, revealSeq]);
}

/** The rows near the viewport, each placed at its measured offset. */
function VirtualRows({ listRef, virtualizer, rows, compacting }: { listRef: RefObject<HTMLDivElement | null>; virtualizer: Virtualizer; rows: ChatRow[]; compacting: boolean }) {
  return (
    <div ref={listRef} data-testid="message-list" data-rows={rows.length} className="relative w-full" style={{ height: virtualizer.getTotalSize(), overflowAnchor: "none" }}>
      {virtualizer.getVirtualItems().map((item) => {
        const row = rows[item.index];
        if (!row) return null;
        return (
          <div
            key={item.key}
            data-index={item.index}
            ref={virtualizer.measureElement}
            className="absolute top-0 left-0 w-full pb-6"
            style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
          >
            <Row row={row} compacting={compacting} />
          </div>
        );
      })}
    </div>
  );
}

function JumpToLatest({ onClick }: { onClick: () => void }) {
  return (
    <div className="pointer-events-none sticky bottom-40 z-20 flex h-0 justify-center">
      <Button variant="primary" size="sm" data-testid="jump-to-latest" className="pointer-events-auto -translate-y-full rounded-full shadow-lg" onClick={onClick}>
        <Icon name="chevron" className="size-4 rotate-90" />
        Jump to latest
      </Button>
    </div>
  );
}

const Row = memo(function Row({ row, compacting }: { row: ChatRow; compacting: boolean }) {
  if (row.kind === "compaction") return <CompactionRow request={row.request} summary={row.summary} compacting={compacting} />;
  return <MessageView message={row.message} />;
}, sameRow);

function sameRow(a: { row: ChatRow; compacting: boolean }, b: { row: ChatRow; compacting: boolean }): boolean {
  if (a.row.kind === "message" && b.row.kind === "message") return a.row.message === b.row.message;
  if (a.row.kind === "compaction" && b.row.kind === "compaction") {
    return a.row.request === b.row.request && a.row.summary === b.row.summary && a.compacting === b.compacting;
  }
  return false;
}

/** The top of the conversation: where older pages come in, or where it begins. */
function ListTop({ live }: { live: LiveSession }) {
  const { snapshot } = live;
  if (!snapshot.hasOlder) {
    return snapshot.messages.length > 0 ? (
      <p data-testid="conversation-start" className="text-center text-xs text-zinc-400">
        Beginning of the conversation
      </p>
    ) : null;
  }
  return (
    <div className="flex justify-center">
      <Button size="sm" data-testid="load-older" onClick={live.loadOlder} disabled={snapshot.loadingOlder}>
        {snapshot.loadingOlder ? <Spinner className="size-3.5" /> : null}
        {snapshot.loadingOlder ? "Loading older messages…" : "Load older messages"}
      </Button>
    </div>
  );
}

function CorruptRows({ rows }: { rows: LiveSession["snapshot"]["corrupt"] }) {
  if (rows.length === 0) return null;
  return (
    <div data-testid="corrupt-warning">
      <ErrorNotice title={`${rows.length} stored ${rows.length === 1 ? "row" : "rows"} of this session could not be read and ${rows.length === 1 ? "is" : "are"} not shown`}>
        <ul className="mt-1 space-y-0.5 font-mono text-xs">
          {rows.map((row) => (
            <li key={`${row.table}-${row.id}`} className="break-all">
              {row.table} {row.id}: {row.error}
            </li>
          ))}
        </ul>
      </ErrorNotice>
    </div>
  );
}
