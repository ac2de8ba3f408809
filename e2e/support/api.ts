import { type APIRequestContext, expect } from "@playwright/test";

/**
 * Calls of the app's tRPC API as a signed-in browser makes them (pass `page.request`: it
 * carries the page's sign-in cookie), for a test step no page should be seen doing.
 */

export async function prompt(request: APIRequestContext, sessionId: string, text: string): Promise<void> {
  const response = await request.post("/api/trpc/session.prompt", { data: { sessionId, parts: [{ type: "text", text }] } });
  expect(response.ok(), await response.text()).toBe(true);
}

export async function reply(request: APIRequestContext, requestId: string, answer: "once" | "always" | "reject"): Promise<void> {
  const response = await request.post("/api/trpc/permission.reply", { data: { requestId, reply: answer } });
  expect(response.ok(), await response.text()).toBe(true);
}
