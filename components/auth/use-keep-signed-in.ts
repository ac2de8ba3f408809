"use client";

import { useEffect } from "react";
import { loadAuthClient } from "./reload";

/** How often an open tab asks for its sign-in (which renews it once a day is past). */
const EVERY_MS = 60 * 60 * 1000;

/**
 * Keeps an active user signed in: tRPC and SSE requests read the sign-in on the server
 * but cannot hand a renewed cookie back, so the tab asks better-auth's `/get-session`
 * when it opens, when it comes back into view and every hour — better-auth extends a
 * sign-in older than a day there and sends the fresh cookie.
 */
export function useKeepSignedIn(): void {
  useEffect(() => {
    // better-auth's client is loaded here, after the page is up: it is not in a page's first JavaScript.
    const renew = () => void loadAuthClient().then((client) => client.getSession());
    const onVisible = () => {
      if (document.visibilityState === "visible") renew();
    };
    renew();
    const timer = setInterval(renew, EVERY_MS);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, []);
}
