import type { ReactNode } from "react";

export function Spinner({ className = "size-4" }: { className?: string }) {
  return (
    <svg className={`animate-spin text-current ${className}`} viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <circle className="opacity-25" cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="4" />
      <path className="opacity-75" fill="currentColor" d="M4 12a8 8 0 0 1 8-8v4a4 4 0 0 0-4 4H4z" />
    </svg>
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <div role="status" className="flex items-center justify-center gap-2 py-12 text-sm text-zinc-500">
      <Spinner />
      {label}
    </div>
  );
}

export function ErrorNotice({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
      <p className="font-semibold">{title}</p>
      {children ? <div className="mt-1 text-red-700">{children}</div> : null}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-2xl border border-dashed border-zinc-300 bg-white px-6 py-14 text-center">
      <p className="text-sm font-semibold text-zinc-900">{title}</p>
      {children ? <div className="mt-1 text-sm text-zinc-500">{children}</div> : null}
    </div>
  );
}

/** A readable message from whatever a query or mutation rejected with. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * A failed request's message on one line under what failed (nothing while there is no
 * error): `what` names it ("Could not rename"), `className` places and sizes it; `inline`
 * keeps it inside a line of text (a span).
 */
export function ErrorLine({ error, what, className = "text-sm text-red-600", inline = false, testId }: { error: unknown; what?: string; className?: string; inline?: boolean; testId?: string }) {
  if (!error) return null;
  const Tag = inline ? "span" : "p";
  return (
    <Tag role="alert" data-testid={testId} className={className}>
      {what ? `${what}: ` : null}
      {errorMessage(error)}
    </Tag>
  );
}

/** The parts of a query QueryView reads (React Query's result has them). */
interface QueryResult<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
}

/** A query's content once loaded (`children` given its data); until then `loading`, and `failed` with the error when it fails. */
export function QueryView<T>({ query, loading, failed, children }: { query: QueryResult<T>; loading: string; failed: string; children: (data: T) => ReactNode }) {
  if (query.isPending) return <Loading label={loading} />;
  if (query.isError || query.data === undefined) return <ErrorNotice title={failed}>{errorMessage(query.error)}</ErrorNotice>;
  return children(query.data);
}
