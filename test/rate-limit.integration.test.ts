import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, openApp } from "./app";
import { PASSWORD } from "./auth";
// What the launcher preloads into the server (`node --import`): stamps each request with its socket's address.
import "../scripts/peer-address.mjs";

/**
 * Sign-in rate limits over real HTTP: a Node server in front of the real better-auth
 * Route Handler, reached from several loopback addresses (127.0.0.x), as production runs
 * it (rate limits on). A client's own X-Forwarded-For changes nothing unless the socket
 * it comes from is a configured trusted proxy; one account is limited from every address.
 */

type AuthRoute = typeof import("../app/api/auth/[...all]/route");

const TRUSTED_PROXY = "127.0.0.9";

/** An HTTP server that hands each request to the auth Route Handler, as Next.js does (headers as received). */
async function serve(route: AuthRoute): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
      });
      void (req.method === "GET" ? route.GET(request) : route.POST(request)).then(
        async (response) => {
          res.writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "text/plain" });
          res.end(Buffer.from(await response.arrayBuffer()));
        },
        (error: unknown) => {
          res.writeHead(500);
          res.end(String(error));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

describe("sign-in rate limits (integration, over HTTP)", () => {
  let app: TestApp;
  let server: { port: number; close(): Promise<void> };

  /** A sign-in attempt from `from` (a loopback address), with whatever extra headers a client may send. */
  function attempt(from: string, email: string, password: string, headers: Record<string, string> = {}): Promise<number> {
    const body = JSON.stringify({ email, password });
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port: server.port,
          localAddress: from,
          method: "POST",
          path: "/api/auth/sign-in/email",
          headers: { "content-type": "application/json", origin: `http://127.0.0.1:${server.port}`, "content-length": Buffer.byteLength(body), ...headers },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  beforeAll(async () => {
    app = await openApp("ratelimit", (dir) => ({
      PARLEY_DATA_DIR: path.join(dir, "data"),
      PARLEY_PROJECT_DIR: path.join(dir, "default"),
      PARLEY_SIGNUP: "open",
      PARLEY_AUTH_RATE_LIMIT: "true",
      PARLEY_TRUSTED_PROXIES: `${TRUSTED_PROXY}, 10.0.0.0/8`,
    }));
    const { getAuth } = await import("../server/auth/instance");
    const auth = await getAuth();
    // Straight through the API, which no rate limit counts.
    for (const who of ["ann", "bea", "cat", "dan", "eve"]) await auth.api.signUpEmail({ body: { email: `${who}@limit.test`, name: who, password: PASSWORD } });
    server = await serve(await import("../app/api/auth/[...all]/route"));
  });
  afterAll(async () => {
    await server?.close();
    await app?.close();
  });

  it("a different X-Forwarded-For (or a forged peer header) per attempt does not get a client past the per-address limit", async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i++) {
      statuses.push(await attempt("127.0.0.2", "ann@limit.test", "wrong password", { "x-forwarded-for": `203.0.113.${i}`, "x-parley-peer": `198.51.100.${i}` }));
    }
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    // Someone else, from another address, is not held up by it.
    expect(await attempt("127.0.0.3", "bea@limit.test", PASSWORD)).toBe(200);
  });

  it("behind a configured proxy, each forwarded client has its own limit; hops a client wrote left of the proxy's are not believed", async () => {
    const viaProxy = (client: string, email: string) => attempt(TRUSTED_PROXY, email, "wrong password", { "x-forwarded-for": client });
    expect([await viaProxy("192.0.2.1", "cat@limit.test"), await viaProxy("192.0.2.1", "cat@limit.test"), await viaProxy("192.0.2.1", "cat@limit.test")]).toEqual([401, 401, 401]);
    expect(await viaProxy("192.0.2.1", "cat@limit.test")).toBe(429);
    // A client that writes its own first hop still gets the proxy's record of it: 192.0.2.1.
    expect(await viaProxy("198.51.100.7, 192.0.2.1", "dan@limit.test")).toBe(429);
    // Another client behind the same proxy is not limited by the first.
    expect(await viaProxy("192.0.2.2", "dan@limit.test")).toBe(401);
  });

  it("one account is limited whatever address its attempts come from", async () => {
    const statuses: number[] = [];
    // One attempt from each of twelve addresses: no address reaches its own limit.
    for (let i = 10; i < 22; i++) statuses.push(await attempt(`127.0.1.${i}`, "Eve@Limit.test", "wrong password"));
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
    // Another account from a fresh address is not affected.
    expect(await attempt("127.0.2.1", "bea@limit.test", PASSWORD)).toBe(200);
  });
});
