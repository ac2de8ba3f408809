import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPrivateAddress } from "./address";
import { guardedFetch } from "./fetch";

/** The guard of every request to a remote tool server: addresses, redirects, sizes, time. */

describe("isPrivateAddress", () => {
  it("refuses loopback, link-local, private, CGNAT, unspecified, multicast and v4-in-v6 forms; public addresses pass", () => {
    for (const address of ["127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "64:ff9b::a9fe:a9fe", "[::1]", "not-an-ip"]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(isPrivateAddress(address), address).toBe(false);
  });
});

describe("guardedFetch", () => {
  let server: http.Server;
  let base: string;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits++;
      if (req.url === "/same") return void res.writeHead(302, { location: "/ok" }).end();
      if (req.url === "/other") return void res.writeHead(302, { location: "http://example.com/ok" }).end();
      if (req.url === "/big") return void res.writeHead(200).end("x".repeat(10_000));
      if (req.url === "/slow") return void setTimeout(() => res.writeHead(200).end("late"), 2_000);
      // Headers at once, then a body that never ends.
      if (req.url === "/stall") return void res.writeHead(200, { "content-type": "application/json" }).write("{");
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  const open = guardedFetch({ allowPrivate: true, maxResponseBytes: 1_000, headersTimeoutMs: 500 });
  const closed = guardedFetch({ allowPrivate: false, maxResponseBytes: 1_000, headersTimeoutMs: 500 });

  it("refuses a loopback literal and a name that resolves to loopback unless private addresses are allowed, before any request", async () => {
    const before = hits;
    await expect(closed(`${base}/ok`)).rejects.toThrow(/loopback, link-local or private address/);
    await expect(closed(`http://localhost:${port}/ok`)).rejects.toThrow(/localhost resolves to a loopback, link-local or private address/);
    await expect(closed(`http://[::ffff:127.0.0.1]:${port}/ok`)).rejects.toThrow(/private address/);
    expect(hits).toBe(before);
    expect(await (await open(`http://localhost:${port}/ok`)).text()).toBe("ok");
  });

  it("follows a redirect within the origin and refuses one to another origin", async () => {
    expect(await (await open(`${base}/same`)).text()).toBe("ok");
    await expect(open(`${base}/other`)).rejects.toThrow(/redirected to another origin/);
  });

  it("cuts an answer larger than the limit and gives up on one whose headers are late", async () => {
    await expect((await open(`${base}/big`)).text()).rejects.toThrow(/more than 1000 bytes/);
    await expect(open(`${base}/slow`)).rejects.toThrow(/sent no answer within 500 ms/);
  });

  it("with a total time limit (answers read whole: OAuth), a body that stalls after its headers fails at the deadline", async () => {
    const whole = guardedFetch({ allowPrivate: true, maxResponseBytes: 1_000, headersTimeoutMs: 500, totalTimeoutMs: 700 });
    const started = Date.now();
    const response = await whole(`${base}/stall`);
    expect(response.status).toBe(200);
    await expect(response.json()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await (await whole(`${base}/ok`)).text()).toBe("ok");
  });
});
