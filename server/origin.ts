import { ParleyError } from "./errors";

/**
 * Which origins the server trusts: its public URL when one is configured, else the one
 * origin each request was made to — the scheme and Host it arrived with. A browser on
 * another site cannot change the Host (or X-Forwarded-Proto) of the requests it sends
 * here, so a foreign page's requests never match, and nothing else is trusted.
 */

/** The origin `req` was made to: the public URL's when configured, else its scheme and Host. */
export function ownOrigin(req: Request, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(publicUrl).origin;
  const url = new URL(req.url);
  const forwardedProto = req.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  const scheme = forwardedProto === "https" || forwardedProto === "http" ? forwardedProto : url.protocol.slice(0, -1);
  const host = req.headers.get("host") ?? url.host;
  // A Host that does not parse as one is nobody's origin: fall back to the URL's own.
  return URL.parse(`${scheme}://${host}`)?.origin ?? url.origin;
}

/**
 * FORBIDDEN when a browser sent `req` from another origin: an Origin header (or, without
 * one, `Sec-Fetch-Site: cross-site`) that is not this server's. A request without either
 * is not a browser's cross-site request (browsers send Origin with every POST and every
 * cross-origin fetch or EventSource) and goes on to the usual sign-in checks.
 */
export function assertSameOrigin(req: Request, publicUrl: string | undefined): void {
  const origin = req.headers.get("origin");
  if (origin !== null) {
    if (origin === ownOrigin(req, publicUrl)) return;
    throw new ParleyError("FORBIDDEN", "Requests from another site are refused.", { details: { origin } });
  }
  if (req.headers.get("sec-fetch-site") === "cross-site") {
    throw new ParleyError("FORBIDDEN", "Requests from another site are refused.");
  }
}
