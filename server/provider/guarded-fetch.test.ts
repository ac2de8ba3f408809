import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { guardedFetch } from "./guarded-fetch";
import { DEFAULT_PROVIDER_LIMITS, isProviderLimitError } from "./limits";

/** The fetch of the Anthropic and Google providers: their answers are untrusted (limits.ts). */

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handler: http.RequestListener): Promise<{ url: string; seen: http.IncomingHttpHeaders[] }> {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("guardedFetch", () => {
  it("issue 35: a redirect to another origin is refused, so the team's key never goes there", async () => {
    const elsewhere = await serve((_req, res) => res.end("{}"));
    const provider = await serve((_req, res) => res.writeHead(307, { location: `${elsewhere.url}/v1/messages` }).end());
    const error = await guardedFetch()(`${provider.url}/v1/messages`, { method: "POST", headers: { "x-api-key": "sk-team" }, body: "{}" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isProviderLimitError(error)).toBe(true);
    expect(elsewhere.seen).toHaveLength(0);
    expect(provider.seen[0]?.["accept-encoding"]).toBe("identity");
  });

  it("issue 35: an answer longer than maxAnswerBytes fails once past the limit", async () => {
    const provider = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end("x".repeat(4096));
    });
    const response = await guardedFetch({ ...DEFAULT_PROVIDER_LIMITS, maxAnswerBytes: 1024 })(`${provider.url}/v1/messages`);
    const error = await response.text().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isProviderLimitError(error)).toBe(true);
    expect(String(error)).toContain("provider.maxAnswerBytes");
  });
});
