import type { MessageError } from "./types";

/**
 * Crash recovery (server/session/recovery.ts) closes a reply cut off by a server stop with
 * an AbortedError whose message starts like this; it was not the user's stop.
 */
const INTERRUPTED = /^interrupted\b/i;

export type ErrorKind = "aborted" | "interrupted" | "auth" | "api" | "output-length" | "context-overflow" | "unknown";

/** A stored error as a heading and an explanation a person can act on. */
export function describeError(error: MessageError): { kind: ErrorKind; title: string; detail: string | undefined } {
  switch (error.name) {
    case "AbortedError":
      if (INTERRUPTED.test(error.message)) return { kind: "interrupted", title: "Interrupted", detail: error.message };
      return { kind: "aborted", title: "Stopped", detail: error.message || "The response was aborted before it finished." };
    case "AuthError":
      return { kind: "auth", title: `Authentication failed for ${error.providerId}`, detail: error.message };
    case "APIError":
      return {
        kind: "api",
        title: `Provider API error${error.statusCode ? ` (HTTP ${error.statusCode})` : ""}`,
        detail: `${error.message}${error.isRetryable ? " — the request may succeed if retried." : ""}`,
      };
    case "OutputLengthError":
      return { kind: "output-length", title: "Output length limit reached", detail: error.message ?? "The model hit its maximum output length; the answer is cut short." };
    case "ContextOverflowError":
      return {
        kind: "context-overflow",
        title: "Context window exceeded",
        detail: `${error.message}${error.message ? " " : ""}Compact the conversation or start a new session to go on.`,
      };
    case "UnknownError":
      return { kind: "unknown", title: "Something went wrong", detail: error.message };
  }
}

export function MessageErrorNotice({ error }: { error: MessageError }) {
  const { kind, title, detail } = describeError(error);
  const aborted = kind === "aborted";
  const body = "responseBody" in error ? error.responseBody : undefined;
  return (
    <div
      role="alert"
      data-testid="message-error"
      data-error-name={error.name}
      data-error-kind={kind}
      className={`rounded-xl border px-3.5 py-2.5 text-sm ${aborted ? "border-zinc-200 bg-zinc-50 text-zinc-700" : "border-red-200 bg-red-50 text-red-800"}`}
    >
      <p className="font-semibold">{title}</p>
      {detail ? <p className={`mt-0.5 break-words ${aborted ? "text-zinc-600" : "text-red-700"}`}>{detail}</p> : null}
      {body ? (
        <details className="mt-1.5">
          <summary className="cursor-pointer text-xs font-medium select-none">Response body</summary>
          <pre className="mt-1 max-h-48 overflow-auto rounded-md bg-white/70 p-2 font-mono text-xs whitespace-pre-wrap break-words">{body}</pre>
        </details>
      ) : null}
    </div>
  );
}
