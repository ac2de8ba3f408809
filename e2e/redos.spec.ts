import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { expect, test } from "./fixtures";

/**
 * Patterns that freeze a backtracking regex engine (`(a+)+$`, `*a*a*a*a*a*a*a*a*a*c`),
 * sent through the real server process as a member could: in grep, in a session rule
 * checked against a 40-character path, in a glob. Each tool call ends in well under a
 * second, and requests of other users keep being answered quickly meanwhile.
 */

const STARS = "*a*a*a*a*a*a*a*a*a*c";

interface ToolState {
  status: string;
  time?: { start: number; end?: number };
  output?: string;
  error?: string;
}
type Message = { info: { role: string; finish?: string; error?: unknown }; parts: { type: string; tool?: string; state?: ToolState }[] };

async function trpc<T>(request: APIRequestContext, procedure: string, input: unknown, mutation = false): Promise<T> {
  const res = mutation
    ? await request.post(`/api/trpc/${procedure}`, { data: input })
    : await request.get(`/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`);
  expect(res.status(), `${procedure}: ${await res.text()}`).toBe(200);
  return ((await res.json()) as { result: { data: T } }).result.data;
}

test("pathological patterns in grep, a session rule and a glob finish fast and never delay other requests", async ({ playwright, account, seed }) => {
  const baseURL = test.info().project.use.baseURL;
  const request = await playwright.request.newContext({ baseURL, storageState: { cookies: account.cookies, origins: [] } });
  const other = await playwright.request.newContext({ baseURL, storageState: { cookies: account.cookies, origins: [] } });
  try {
    const folder = `redos-${Date.now().toString(36)}`;
    const name = "a".repeat(40);

    // A member may add "ask" rules to a session: this one is checked against every path read.
    const session = await trpc<{ id: string }>(
      request,
      "session.create",
      { projectId: seed.projectId, title: "ReDoS", permission: [{ permission: "read", pattern: STARS, action: "ask" }] },
      true,
    );
    // The file is put in the session's own workspace (made now: reading its diff makes it).
    await trpc(request, "workspace.diff", { sessionId: session.id });
    const directory = await seed.directory(session.id);
    mkdirSync(path.join(directory, folder), { recursive: true });
    writeFileSync(path.join(directory, folder, name), `${"a".repeat(30)}!\n${"a".repeat(30)}\n`);

    // Meanwhile another client keeps asking the server something cheap.
    const latencies: number[] = [];
    let pinging = true;
    const pinger = (async () => {
      while (pinging) {
        const begin = performance.now();
        const res = await other.get(`/api/trpc/team.current?input=${encodeURIComponent("null")}`);
        latencies.push(performance.now() - begin);
        expect(res.status()).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const text = `grep \`(a+)+$\` in ${folder}, then read ${folder}/${name}, then glob \`${STARS}\` in ${folder}`;
    await trpc(request, "session.prompt", { sessionId: session.id, parts: [{ type: "text", text }] }, true);
    let messages: Message[] = [];
    await expect
      .poll(
        async () => {
          messages = (await trpc<{ messages: Message[] }>(request, "message.page", { sessionId: session.id })).messages;
          const last = messages.at(-1)?.info;
          return last?.role === "assistant" && (last.finish === "stop" || last.error !== undefined);
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    pinging = false;
    await pinger;

    const tools = messages.flatMap((m) => m.parts).filter((p) => p.type === "tool");
    expect(tools.map((t) => [t.tool, t.state?.status])).toEqual([
      ["grep", "completed"],
      ["read", "completed"],
      ["glob", "completed"],
    ]);
    for (const tool of tools) {
      const time = tool.state?.time;
      expect(time?.end, tool.tool).toBeDefined();
      expect((time?.end ?? Infinity) - (time?.start ?? 0), `${tool.tool} took`).toBeLessThan(1000);
    }
    expect(tools[0]?.state?.output).toContain(`${folder}/${name}`);
    expect(tools[2]?.state?.output).toBe("No files found");
    expect(latencies.length).toBeGreaterThan(3);
    expect(Math.max(...latencies), `latencies of the other client: ${latencies.map((l) => l.toFixed(0)).join(", ")} ms`).toBeLessThan(100);
  } finally {
    await request.dispose();
    await other.dispose();
  }
});
