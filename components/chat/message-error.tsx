import type { MessageError } from "./types";

/** A stored error as a heading and an explanation a person can act on. */
export function describeError(error: MessageError): { title: string; detail: string | undefined } {
  switch (error.name) {
    case "AbortedError":
      return { title: "Stopped", detail: error.message || "The response was aborted before it finished." };
    case "AuthError":
      return { title: `Authentication failed for ${error.providerId}`, detail: error.message };
    case "APIError":
      return {
        title: `Provider API error${error.statusCode ? ` (HTTP ${error.statusCode})` : ""}`,
        detail: `${error.message}${error.isRetryable ? " — the request may succeed if retried." : ""}`,
      };
    case "OutputLengthError":
      return { title: "Output length limit reached", detail: error.message ?? "The model hit its maximum output length; the answer is cut short." };
    case "ContextOverflowError":
      return { title: "Context window exceeded", detail: error.message };
    case "UnknownError":
      return { title: "Something went wrong", detail: error.message };
  }
}

export function MessageErrorNotice({ error }: { error: MessageError }) {
  const { title, detail } = describeError(error);
  const aborted = error.name === "AbortedError";
  const body = "responseBody" in error ? error.responseBody : undefined;
  return (
    <div
      role="alert"
      data-testid="message-error"
      data-error-name={error.name}
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
