/**
 * Helpers of the auth pages that do not need better-auth's client, so that importing them
 * (the tRPC client does, on every page) does not put better-auth in a page's JavaScript.
 */

/** The message of a better-auth error ({ message?, statusText }), for an alert. */
export function authErrorMessage(error: { message?: string | undefined; statusText?: string } | null | undefined): string {
  return error?.message || error?.statusText || "Something went wrong.";
}

/**
 * After signing in or out or switching teams, load the page afresh: the header, the
 * layout's access check and every cached query belong to the previous user or team.
 */
export function reloadTo(path: string): void {
  window.location.assign(path);
}

/** better-auth's browser client, loaded when it is first used (signing out, switching teams, renewing). */
export async function loadAuthClient(): Promise<typeof import("./client").authClient> {
  return (await import("./client")).authClient;
}
