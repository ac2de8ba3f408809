/**
 * The domain's one error type. Transports map `code` to their own status once
 * (server/trpc/init.ts, server/http.ts); the original error stays in `cause`.
 */
export type ParleyErrorCode =
  | "NOT_FOUND"
  | "FORBIDDEN"
  | "UNAUTHORIZED"
  | "INVALID"
  | "BUSY"
  | "CONFLICT"
  | "TOO_MANY"
  | "CORRUPT"
  | "INTERNAL"
  /** This instance is shutting down and takes no new work: the client retries (on another instance). */
  | "UNAVAILABLE";

/**
 * A brand shared by every copy of this module: Next.js bundles server code once per
 * route, while the runtime (and the errors its services throw) lives on `globalThis`
 * and comes from whichever copy created it first — so `instanceof` alone is not enough.
 */
const BRAND = Symbol.for("parley.error");

export class ParleyError extends Error {
  override name = "ParleyError";
  readonly [BRAND] = true;
  constructor(
    readonly code: ParleyErrorCode,
    message: string,
    options?: { cause?: unknown; details?: Record<string, unknown> },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.details = options?.details;
  }
  readonly details: Record<string, unknown> | undefined;

  static notFound(what: string, id: string): ParleyError {
    return new ParleyError("NOT_FOUND", `${what} ${id} was not found`, { details: { id } });
  }
  static invalid(message: string, details?: Record<string, unknown>): ParleyError {
    return new ParleyError("INVALID", message, { details });
  }
}

export function isParleyError(error: unknown): error is ParleyError {
  return error instanceof ParleyError || (error instanceof Error && (error as Partial<Record<typeof BRAND, unknown>>)[BRAND] === true);
}

/** HTTP status for a domain error code — the single mapping used by Route Handlers. */
export function httpStatus(code: ParleyErrorCode): number {
  switch (code) {
    case "NOT_FOUND":
      return 404;
    case "FORBIDDEN":
      return 403;
    case "UNAUTHORIZED":
      return 401;
    case "INVALID":
      return 400;
    case "BUSY":
    case "CONFLICT":
      return 409;
    case "TOO_MANY":
      return 429;
    case "CORRUPT":
    case "INTERNAL":
      return 500;
    case "UNAVAILABLE":
      return 503;
  }
}
