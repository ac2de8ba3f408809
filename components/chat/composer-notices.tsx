import type { RequestError } from "./use-composer-send";

/**
 * A readable reason a request failed: the validation messages of a rejected input (e.g.
 * a message over the size limit), else the error's own message.
 */
export function requestErrorMessage(error: RequestError): string {
  const issues = error.data?.issues ?? [];
  return issues.length > 0 ? issues.map((issue) => issue.message).join("; ") : error.message;
}

function Notice({ testId, tone, title, children }: { testId: string; tone: "amber" | "red"; title: string; children: string }) {
  const colours = tone === "amber" ? "border-amber-200 bg-amber-50 text-amber-900" : "border-red-200 bg-red-50 text-red-800";
  return (
    <p role="alert" data-testid={testId} className={`rounded-lg border px-3 py-2 text-sm ${colours}`}>
      <span className="font-semibold">{title}: </span>
      {children}
    </p>
  );
}

/** What went wrong under the composer: files not attached, a message or command refused, Stop failing. */
export function ComposerNotices(props: { attachError: string | undefined; failure: { what: string; error: RequestError } | undefined; stopError: RequestError | null }) {
  return (
    <>
      {props.attachError ? (
        <Notice testId="attach-error" tone="amber" title="Not attached">
          {props.attachError}
        </Notice>
      ) : null}
      {props.failure ? (
        <Notice testId="composer-error" tone="red" title={props.failure.what}>
          {requestErrorMessage(props.failure.error)}
        </Notice>
      ) : null}
      {props.stopError ? (
        <Notice testId="stop-error" tone="red" title="Could not stop the agent">
          {requestErrorMessage(props.stopError)}
        </Notice>
      ) : null}
    </>
  );
}
