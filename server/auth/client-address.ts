import { BlockList, isIP } from "node:net";
import { ParleyError } from "../errors";

/**
 * Who is really connected, for the sign-in rate limits. The launcher's preload
 * (scripts/peer-address.mjs) stamps each request with its socket's address in PEER_HEADER
 * (a client's own value under that name is replaced). X-Forwarded-For is believed only
 * when that socket is one of the configured trusted proxies (PARLEY_TRUSTED_PROXIES), and
 * then only up to the first hop that is not one of them: everything left of it is
 * whatever the client chose to write.
 */

/** Set by scripts/peer-address.mjs from the socket; never a client's value. */
export const PEER_HEADER = "x-parley-peer";
/** The resolved address, on the request better-auth reads (advanced.ipAddress.ipAddressHeaders). */
export const CLIENT_ADDRESS_HEADER = "x-parley-client-address";

const PEER_HEADER_SET = Symbol.for("parley.peer-header");

/** Whether this process stamps PEER_HEADER itself (the launcher's preload ran); else the header is a client's. */
export function peerHeaderStamped(): boolean {
  return (globalThis as Record<symbol, unknown>)[PEER_HEADER_SET] === true;
}

export type TrustedProxies = BlockList;

/** Addresses and CIDR ranges ("10.0.0.0/8", "::1") → a matcher; INVALID names a bad entry. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix, ...rest] = entry.trim().split("/");
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    const max = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0 || (bits !== undefined && !(Number.isInteger(bits) && bits >= 0 && bits <= max && /^\d+$/.test(prefix ?? "")))) {
      throw ParleyError.invalid(`"${entry}" is not an IP address or CIDR range`);
    }
    const type = family === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, bits, type);
  }
  return list;
}

/** "::ffff:10.0.0.1" → "10.0.0.1": Node reports IPv4 peers of a dual-stack socket that way. */
function plain(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

function isTrusted(address: string, proxies: TrustedProxies): boolean {
  const family = isIP(address);
  return family !== 0 && proxies.check(address, family === 6 ? "ipv6" : "ipv4");
}

/**
 * The client's address: the socket's, or — when the socket is a trusted proxy — the
 * right-most X-Forwarded-For hop that is not a trusted proxy. null when unknown (no
 * stamped peer address, or a forwarded hop that is not an address).
 */
export function clientAddress(headers: Headers, proxies: TrustedProxies, stamped = peerHeaderStamped()): string | null {
  const peer = stamped ? headers.get(PEER_HEADER) : null;
  if (!peer || isIP(plain(peer)) === 0) return null;
  let client = plain(peer);
  if (!isTrusted(client, proxies)) return client;
  const hops = (headers.get("x-forwarded-for") ?? "").split(",").map((hop) => plain(hop.trim())).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) === 0) return null;
    client = hop;
    if (!isTrusted(hop, proxies)) return hop;
  }
  // Every hop is a trusted proxy: the left-most is as close to the client as anyone knows.
  return client;
}

/** `req` with CLIENT_ADDRESS_HEADER set to its client's address (or removed when unknown), whatever the client sent. */
export function withClientAddress(req: Request, proxies: TrustedProxies): Request {
  const headers = new Headers(req.headers);
  const address = clientAddress(req.headers, proxies);
  if (address) headers.set(CLIENT_ADDRESS_HEADER, address);
  else headers.delete(CLIENT_ADDRESS_HEADER);
  return new Request(req, { headers });
}
