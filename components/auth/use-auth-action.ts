"use client";

import { useState } from "react";
import { authErrorMessage } from "./reload";

/** What better-auth's client answers a call with on failure. */
type AuthFailure = Parameters<typeof authErrorMessage>[0];

/**
 * A call to better-auth from a form or a button: `run(key, call, then)` marks it pending
 * (`key`: which of several buttons), clears the last error and awaits `call`; when that
 * fails its message is kept and nothing is pending any more, else `then` follows (usually
 * a reload elsewhere, so the pending state stays).
 */
export function useAuthAction<Key = true>() {
  const [pending, setPending] = useState<Key>();
  const [error, setError] = useState<string>();
  async function run(key: Key, call: () => Promise<{ error: AuthFailure }>, then: () => void | Promise<void>): Promise<void> {
    setPending(key);
    setError(undefined);
    const { error: failed } = await call();
    if (failed) {
      setPending(undefined);
      setError(authErrorMessage(failed));
      return;
    }
    await then();
  }
  return { pending, error, run };
}
