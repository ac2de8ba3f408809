import { SessionStore } from "@/components/chat/store";
import type { EventSourceHandlers } from "@/components/events/use-event-source";
import { errorMessage } from "@/components/ui/feedback";
import type { LiveEvent } from "@/server/live/event-types";
import type { Status } from "@/server/session/events";
import type { Info } from "@/server/session/info";
import { removeChild, upsertChild } from "./children";
import type { Fetch, Gone, LivePage, LiveTransport } from "./transport";

/** Messages per page: the newest page is shown first, older ones are fetched on demand. */
export const PAGE_SIZE = 50;

/** What a live view knows besides its messages (those are in its SessionStore). */
export interface LiveState {
  /** Direct children of the session shown, newest first. */
  children: Info[];
  /** Set once the view has nothing more to show; its stream is then closed. */
  gone: Gone | undefined;
  /** Whether the stream is open. */
  connected: boolean;
}

/**
 * A session kept live in a SessionStore from two sources that overlap in time: pages of
 * stored messages (`transport.fetchPage`) and the events of its SSE stream. The newest
 * page is read at mount (unless the transport already has it) and again every time the
 * stream (re)opens, since what was written before the subscription only a read can
 * show; overlapping reads are applied in the order they started. Older pages load on
 * demand, keeping the place. The store merges so nothing goes backwards or repeats.
 *
 * Plain TypeScript, so it is tested without a browser; components/live/use-live.ts
 * binds it to React and to the tab's shared EventSource.
 */
export class LiveController {
  readonly store: SessionStore;
  private transport: LiveTransport;
  private state: LiveState;
  private readonly listeners = new Set<() => void>();
  private readonly fetches = new Set<AbortController>();
  private newestStarted = 0;
  private newestApplied = 0;
  private failed: Fetch = "newest";
  /** When the run status was last learned from the stream: a page read started before then holds an older one. */
  private statusAt = 0;
  private probedAt = 0;

  constructor(
    transport: LiveTransport,
    private readonly now: () => number = Date.now,
  ) {
    this.transport = transport;
    this.store = new SessionStore(transport.sessionId);
    const { initial } = transport;
    this.state = { children: initial?.children ?? [], gone: undefined, connected: false };
    if (initial?.info) {
      this.store.setInfo(initial.info);
      if (initial.info.status) this.store.setStatus(initial.info.status);
    }
    if (initial) this.store.applyPage(initial.page, false);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getState = (): LiveState => this.state;

  /** The transport of the latest render: its callbacks close over the component's latest values. */
  setTransport(transport: LiveTransport): void {
    this.transport = transport;
  }

  /** Mounted: read the newest page unless the transport has it. The cleanup cancels every fetch in flight. */
  start = (): (() => void) => {
    if (!this.transport.initial) void this.fetchNewest();
    return () => {
      for (const controller of this.fetches) controller.abort();
    };
  };

  /** Fetch the page before the oldest shown message (no-op while one is loading or none is left). */
  loadOlder = (): void => {
    const current = this.store.getSnapshot();
    if (!current.loaded || !current.hasOlder || current.loadingOlder || current.olderCursor === undefined) return;
    const before = current.olderCursor;
    const controller = new AbortController();
    this.fetches.add(controller);
    this.store.setLoadingOlder(true);
    void this.transport
      .fetchPage({ before, limit: PAGE_SIZE }, controller.signal)
      .then(
        ({ page }) => {
          // A reconnect may have restarted paging meanwhile: this page no longer fits.
          if (!controller.signal.aborted && this.store.getSnapshot().olderCursor === before) this.store.applyPage(page, true);
          if (this.store.getSnapshot().error) this.store.setError(undefined);
        },
        (error: unknown) => {
          if (!controller.signal.aborted) this.fail("older", error);
        },
      )
      .finally(() => {
        this.fetches.delete(controller);
        this.store.setLoadingOlder(false);
      });
  };

  /** Fetch again what failed last (the newest page, or the older page). */
  retry = (): void => {
    if (this.failed === "older") this.loadOlder();
    else void this.fetchNewest();
  };

  /** For the stream: read through `this`, so they can be handed over once. */
  readonly handlers: EventSourceHandlers = {
    onEvent: (event) => this.onEvent(event),
    onOpen: (reconnect) => {
      this.update({ connected: true });
      // Subscribed now: whatever is stored from here on is either in this page or arrives
      // as an event (a page read before may have missed what came in between).
      void this.fetchNewest();
      this.transport.onOpen?.(reconnect);
    },
    onError: () => {
      this.update({ connected: false });
      this.probe();
    },
  };

  /** Read the newest page; a read that ends after a later one was applied is dropped. */
  private async fetchNewest(): Promise<void> {
    const seq = ++this.newestStarted;
    const controller = new AbortController();
    this.fetches.add(controller);
    const started = this.now();
    try {
      const fetched = await this.transport.fetchPage({ limit: PAGE_SIZE }, controller.signal);
      if (controller.signal.aborted || seq < this.newestApplied) return;
      this.newestApplied = seq;
      this.applyNewest(fetched, started);
    } catch (error) {
      if (controller.signal.aborted || seq < this.newestApplied) return;
      this.fail("newest", error);
    } finally {
      this.fetches.delete(controller);
    }
  }

  private applyNewest({ page, info, children }: LivePage, started: number): void {
    this.store.applyPage(page, false);
    if (info) {
      this.store.setInfo(info);
      // A status from the stream received while the page was read is newer than the page's.
      if (this.statusAt < started) this.store.setStatus(info.status ?? { type: "idle" });
    }
    if (children) this.update({ children: children.reduce(upsertChild, this.state.children) });
    if (this.store.getSnapshot().error) this.store.setError(undefined);
  }

  private fail(what: Fetch, error: unknown): void {
    const gone = this.transport.goneOn?.(error);
    if (gone) return this.end(gone);
    this.failed = what;
    this.store.setError(this.transport.describeError?.(what, error) ?? errorMessage(error));
  }

  /** A dropped stream: check with a read, at most every `probeMs`, whether the view is still there. */
  private probe(): void {
    const every = this.transport.probeMs;
    if (every === undefined) return;
    const now = this.now();
    if (now - this.probedAt < every) return;
    this.probedAt = now;
    void this.fetchNewest();
  }

  private onEvent(event: LiveEvent): void {
    const shown = this.store.sessionId;
    switch (event.name) {
      case "share.revoked":
        return this.end("revoked");
      case "stream.ready":
        return this.ready(event.payload);
      case "session.created":
      case "session.updated":
        return this.sessionInfo(event);
      case "session.deleted": {
        const { info } = event.payload;
        if (info.id === shown) this.end("deleted");
        else this.update({ children: removeChild(this.state.children, info.id) });
        return;
      }
      case "session.status":
        if (event.payload.sessionId !== shown) return;
        this.statusAt = this.now();
        this.store.apply(event);
        return;
      default:
        if (event.scope.sessionId === shown) this.store.apply(event);
    }
  }

  /** The stream's opening is complete: the run status it carries is the current one. */
  private ready({ sessionId, status }: { sessionId: string; status?: Status }): void {
    if (sessionId !== this.store.sessionId || !status) return;
    this.statusAt = this.now();
    this.store.setStatus(status);
  }

  /** The session shown changed, or one of its children was created or changed. */
  private sessionInfo(event: Extract<LiveEvent, { name: "session.created" | "session.updated" }>): void {
    const { info } = event.payload;
    if (info.id === this.store.sessionId) {
      this.store.apply(event);
      const held = this.store.getSnapshot().info;
      if (held) this.transport.onInfo?.(held);
    } else if (info.parentId === this.store.sessionId) {
      this.update({ children: upsertChild(this.state.children, info) });
    }
  }

  private end(gone: Gone): void {
    if (!this.state.gone) this.update({ gone });
  }

  private update(patch: Partial<LiveState>): void {
    const next = { ...this.state, ...patch };
    if (next.children === this.state.children && next.gone === this.state.gone && next.connected === this.state.connected) return;
    this.state = next;
    for (const listener of this.listeners) listener();
  }
}
