import { BlockList, isIP } from "node:net";

/**
 * Which addresses a remote tool server may be reached at (SSRF). A URL an admin enters is
 * fetched by the server, from inside its network: by default every address that is not a
 * public unicast address is refused — loopback, link-local (cloud metadata services),
 * private and unique-local ranges, carrier-grade NAT, unspecified, multicast and reserved
 * ones, and IPv4 addresses mapped or translated into IPv6. The operator may allow them
 * (`mcp.allowPrivateAddresses`) for tool servers inside their own network.
 */

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address an IPv6 address carries (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, compatible `::a.b.c.d`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::|::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Whether an IP address is not a public unicast address (see above). A string that is not an IP address counts as private. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, "ipv4");
  if (family !== 6) return true;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined) return blocked.check(inner, "ipv4");
  return blocked.check(bare, "ipv6");
}
