"use client";

import { createContext, useContext } from "react";

/**
 * Where a link to another session (a task tool's child session) leads. Members open the
 * session page; a share link's viewer stays inside the share (components/share).
 */
export type SessionHref = (sessionId: string) => string;

const SessionHrefContext = createContext<SessionHref>((sessionId) => `/sessions/${sessionId}`);

export const SessionHrefProvider = SessionHrefContext.Provider;

export function useSessionHref(): SessionHref {
  return useContext(SessionHrefContext);
}
