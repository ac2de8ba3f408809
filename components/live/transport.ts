import type { PageInput } from "@/components/chat/store";
import type { Info } from "@/server/session/info";

/**
 * How one live view of a session reaches the server (vercel/ai's `ChatTransport` idea):
 * where its pages of stored messages come from and which SSE stream carries its events.
 * The chat (a member's session, components/chat/use-live-session.ts) is its transport for
 * the hook components/live/use-live.ts. (The share page is rendered on the server and
 * kept live by components/share/share-live.tsx.)
 */
export interface LiveTransport {
  /** The session shown. */
  sessionId: string;
  /** The SSE route whose events keep the session live. */
  eventsUrl: string;
  /** A page of stored messages: the newest when `before` is undefined, else the one before that message. */
  fetchPage(request: { before?: string; limit: number }, signal: AbortSignal): Promise<LivePage>;
  /** What was read already (rendered on the server): shown at once, and no page is fetched at mount. */
  initial?: LivePage;
  /** The session's info as read elsewhere (a query); merged when newer than what is held. */
  info?: Info;
  /** Whether a failed fetch means the view is gone for good (a share link answering NOT_FOUND was revoked). */
  goneOn?(error: unknown): Gone | undefined;
  /** The message shown for a failed fetch. */
  describeError?(failed: Fetch, error: unknown): string;
  /**
   * After the stream drops, re-read the newest page at most this often (ms): a stream the
   * server refuses for good (a revoked link answers 404) is never reopened, the read tells.
   */
  probeMs?: number;
  /** The stream opened; `reconnect` is false the first time. */
  onOpen?(reconnect: boolean): void;
  /** An event changed the session's info. */
  onInfo?(info: Info): void;
}

/** A page of stored messages, with the session (and its children) when the transport reads them too. */
export interface LivePage {
  page: PageInput;
  /** The session as read with the page, its run status included. */
  info?: Info;
  /** Its direct children, newest first. */
  children?: Info[];
}

/** Why a view has nothing more to show: its session was deleted, or its share link revoked. */
export type Gone = "deleted" | "revoked";

/** Which fetch failed: the newest page (at mount, on open) or an older one. */
export type Fetch = "newest" | "older";
