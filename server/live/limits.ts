/** Caps on the live streams (SSE) one instance keeps open (server/live/streams.ts); settings, see server/config.ts. */
export interface StreamLimits {
  /** Open streams per signed-in user (session and team streams). */
  perUser: number;
  /** Open streams per client address, signed in or not. */
  perAddress: number;
  /** Open streams per share link, whoever holds it. */
  perShare: number;
  /** Open streams of one share link from one client address (so one holder cannot take a link's every place). */
  perAddressPerShare: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { perUser: 20, perAddress: 50, perShare: 100, perAddressPerShare: 10 };
