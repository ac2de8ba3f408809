import { describe, expect, it } from "vitest";
import { assertSameOrigin, ownOrigin } from "./origin";

const req = (headers: Record<string, string>, url = "http://127.0.0.1:3000/api/trpc/x") => new Request(url, { headers });

describe("origins", () => {
  it("own origin: the public URL's when configured, else the scheme and Host the request came with", () => {
    expect(ownOrigin(req({ host: "parley.internal:8080" }), undefined)).toBe("http://parley.internal:8080");
    expect(ownOrigin(req({ host: "parley.example", "x-forwarded-proto": "https" }), undefined)).toBe("https://parley.example");
    expect(ownOrigin(req({ host: "anything" }), "https://parley.example/base")).toBe("https://parley.example");
    expect(ownOrigin(req({}), undefined)).toBe("http://127.0.0.1:3000");
  });

  it("refuses another site's Origin, a null one and a cross-site fetch; lets the site's own and non-browser clients through", () => {
    const foreign: Record<string, string>[] = [{ host: "parley.example", origin: "http://evil.example" }, { host: "parley.example", origin: "null" }, { host: "parley.example", "sec-fetch-site": "cross-site" }];
    for (const headers of foreign) {
      expect(() => assertSameOrigin(req(headers), undefined), JSON.stringify(headers)).toThrow(expect.objectContaining({ code: "FORBIDDEN" }));
    }
    expect(() => assertSameOrigin(req({ host: "parley.example", origin: "http://parley.example" }), "https://parley.example")).toThrow();
    expect(() => assertSameOrigin(req({ host: "parley.example", origin: "http://parley.example" }), undefined)).not.toThrow();
    expect(() => assertSameOrigin(req({ host: "parley.example" }), undefined)).not.toThrow();
  });
});
