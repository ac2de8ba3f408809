import type { APIRequestContext } from "@playwright/test";

export const E2E_PASSWORD = "e2e password 1234";

/**
 * Signs up through better-auth's real endpoint (as the sign-up page does); the request
 * context keeps the sign-in cookie. Returns the new user's id.
 */
export async function signUpThroughApi(request: APIRequestContext, user: { email: string; name: string; password: string }): Promise<string> {
  const res = await request.post("/api/auth/sign-up/email", { data: user });
  if (!res.ok()) throw new Error(`sign-up of ${user.email} failed: ${res.status()} ${await res.text()}`);
  const body = (await res.json()) as { user: { id: string } };
  return body.user.id;
}
