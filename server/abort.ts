/**
 * Waiting that an AbortSignal cuts short, and the error it ends with: one of each for the
 * model door's retries and the offline provider.
 */

/** The longest delay setTimeout keeps (longer ones fire at once). */
const MAX_TIMER_DELAY = 2 ** 31 - 1;

/** The error of an aborted wait or call: the signal's own reason when it is an AbortError. */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  const error = new Error(typeof reason === "string" ? reason : "aborted", reason === undefined ? undefined : { cause: reason });
  error.name = "AbortError";
  return error;
}

/** Wait `ms`, or reject at once with an AbortError when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortError(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, Math.min(Math.max(0, ms), MAX_TIMER_DELAY));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
