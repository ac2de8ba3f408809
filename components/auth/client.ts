"use client";

import { organizationClient } from "better-auth/client/plugins";
import { createAuthClient } from "better-auth/react";

/** better-auth in the browser: sign-up, sign-in, sign-out, teams and invitations (same origin, /api/auth). */
export const authClient = createAuthClient({ plugins: [organizationClient()] });

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
