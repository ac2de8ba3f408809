import { describe, expect, it } from "vitest";
import { AccountAttempts } from "./attempts";
import { CLIENT_ADDRESS_HEADER, PEER_HEADER, clientAddress, trustedProxies, withClientAddress } from "./client-address";

const none = trustedProxies([]);
const proxies = trustedProxies(["10.0.0.0/8", "192.0.2.1", "fd00::/8"]);
const headers = (peer: string | undefined, forwarded?: string) =>
  new Headers({ ...(peer ? { [PEER_HEADER]: peer } : {}), ...(forwarded ? { "x-forwarded-for": forwarded } : {}) });

describe("clientAddress", () => {
  it("is the socket's address, whatever X-Forwarded-For says, when the socket is no trusted proxy", () => {
    expect(clientAddress(headers("203.0.113.9", "1.2.3.4"), none, true)).toBe("203.0.113.9");
    expect(clientAddress(headers("::ffff:203.0.113.9", "1.2.3.4"), proxies, true)).toBe("203.0.113.9");
  });

  it("behind trusted proxies, is the right-most hop that is not one of them", () => {
    expect(clientAddress(headers("10.1.1.1", "198.51.100.7"), proxies, true)).toBe("198.51.100.7");
    expect(clientAddress(headers("10.1.1.1", "6.6.6.6, 198.51.100.7, 192.0.2.1"), proxies, true)).toBe("198.51.100.7");
    expect(clientAddress(headers("fd00::1", "2001:db8::5"), proxies, true)).toBe("2001:db8::5");
    // All hops trusted: the left-most; no header: the proxy itself.
    expect(clientAddress(headers("10.1.1.1", "10.2.2.2"), proxies, true)).toBe("10.2.2.2");
    expect(clientAddress(headers("10.1.1.1"), proxies, true)).toBe("10.1.1.1");
    // A hop that is not an address: nobody knows who the client is.
    expect(clientAddress(headers("10.1.1.1", "unknown"), proxies, true)).toBeNull();
  });

  it("is unknown without a peer address stamped by this process — a client's own header is not one", () => {
    expect(clientAddress(headers(undefined, "1.2.3.4"), none, true)).toBeNull();
    expect(clientAddress(headers("203.0.113.9"), none, false)).toBeNull();
    expect(clientAddress(headers("not an address"), none, true)).toBeNull();
  });

  it("replaces whatever the client sent as the resolved address", () => {
    const req = new Request("http://parley.test/api/auth/sign-in/email", { headers: { [CLIENT_ADDRESS_HEADER]: "1.1.1.1" } });
    expect(withClientAddress(req, none).headers.get(CLIENT_ADDRESS_HEADER)).toBeNull();
  });
});

describe("AccountAttempts", () => {
  it("allows `max` attempts per account (any case) within the window, then refuses until the oldest ages out", () => {
    let now = 0;
    const attempts = new AccountAttempts({ max: 2, windowMs: 1000 }, () => now);
    expect(attempts.attempt("ann@x.test").allowed).toBe(true);
    now = 400;
    expect(attempts.attempt("ANN@x.test").allowed).toBe(true);
    expect(attempts.attempt("ann@x.test")).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(attempts.attempt("bob@x.test").allowed).toBe(true);
    now = 1000;
    expect(attempts.attempt("ann@x.test").allowed).toBe(true);
  });
});
