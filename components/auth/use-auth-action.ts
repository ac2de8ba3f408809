"use client";

import { type FormEvent, useState } from "react";
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

/** useAuthAction for a form: `onSubmit` gives `call` the form's fields. */
export function useAuthForm(call: (form: FormData) => Promise<{ error: AuthFailure }>, then: () => void | Promise<void>) {
  const { pending, error, run } = useAuthAction();
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void run(true, () => call(form), then);
  }
  return { pending, error, onSubmit };
}
