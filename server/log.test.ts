import { describe, expect, it } from "vitest";
import { consoleLines, requestLogger, rootLogger, wrap } from "./log";

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

describe("the server's logger", () => {
  it("writes JSON lines with the scope, the message and the error; fields named like a credential are hidden", () => {
    const { lines, destination } = capture();
    const root = rootLogger(destination, "info");
    wrap(root.child({ scope: "session" })).error("could not store", new Error("disk full"));
    root.child({ scope: "git" }).warn({ headers: { authorization: "Basic c2VjcmV0" }, token: "tok-123" }, "push refused");
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({ level: 50, scope: "session", msg: "could not store", err: { message: "disk full", type: "Error" } });
    expect(second).toMatchObject({ scope: "git", msg: "push refused", token: "[secret]", headers: { authorization: "[secret]" } });
    expect(lines.join("\n")).not.toMatch(/tok-123|c2VjcmV0/);
  });

  it("is readable in development: [scope] message, the request's id, then the error's stack; by level", () => {
    const seen: [number, string][] = [];
    const root = rootLogger(consoleLines((level, text) => seen.push([level, text])), "info");
    wrap(root.child({ scope: "runtime" })).warn("WARNING: the tool sandbox is OFF");
    wrap(root.child({ scope: "trpc", reqId: "req-12345678" })).error("session.prompt failed", new Error("boom"));
    wrap(root.child({ scope: "runtime" })).debug("not at info");
    expect(seen[0]).toEqual([40, "[runtime] WARNING: the tool sandbox is OFF"]);
    expect(seen[1]?.[0]).toBe(50);
    expect(seen[1]?.[1]).toMatch(/^\[trpc\] session\.prompt failed \(request req-12345678\)\nError: boom\n {4}at /);
    expect(seen).toHaveLength(2);
  });

  it("takes a well-formed x-request-id from the proxy and makes one otherwise", () => {
    expect(requestLogger("trpc", new Headers({ "x-request-id": "abc-12345678" })).requestId).toBe("abc-12345678");
    const made = requestLogger("trpc", new Headers({ "x-request-id": "bad id <script>" })).requestId;
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestLogger("trpc", new Headers()).requestId).not.toBe(made);
  });
});
