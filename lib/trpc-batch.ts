/**
 * How tRPC calls may be batched (several procedures in one `?batch=1` request), shared by
 * the server, which refuses other batches (server/trpc/init.ts), and the browser's links
 * (components/trpc/client.tsx), which never send one. Pure: no imports.
 *
 * A batch costs the server the sum of its calls for one request, so it is bounded for
 * members and not offered at all to anyone without a sign-in: the share link's public
 * procedures are called one request each.
 */

/** The most calls one batch of a member may hold. */
export const MAX_BATCH_CALLS = 10;

/** The procedures anyone may call without signing in (a share link's); never batched. */
export const PUBLIC_PROCEDURES: ReadonlySet<string> = new Set(["share.page", "share.diff"]);
