import { type Frame, sseReader } from "../../../test/sse";

/**
 * What a browser does over HTTP, from the test process: tRPC calls (one per request, as
 * the app's client sends mutations) and live streams (SSE), signed in by cookie, against
 * one instance.
 */

export interface Answer<T> {
  status: number;
  headers: Headers;
  data: T | undefined;
  error: { message: string; data?: { parleyCode?: string } } | undefined;
}

export class Api {
  constructor(
    readonly base: string,
    private readonly cookie: string,
  ) {}

  private headers(): Record<string, string> {
    return { cookie: this.cookie, origin: this.base, "content-type": "application/json" };
  }

  /** A tRPC call: queries as GET, the rest as POST. */
  async call<T>(procedure: string, input: unknown, method: "GET" | "POST" = "POST"): Promise<Answer<T>> {
    const query = method === "GET" ? `?input=${encodeURIComponent(JSON.stringify(input))}` : "";
    const res = await fetch(`${this.base}/api/trpc/${procedure}${query}`, {
      method,
      headers: this.headers(),
      ...(method === "POST" ? { body: JSON.stringify(input) } : {}),
    });
    const body = (await res.json()) as { result?: { data: T }; error?: Answer<T>["error"] };
    return { status: res.status, headers: res.headers, data: body.result?.data, error: body.error };
  }

  /** A tRPC call that must succeed. */
  async data<T>(procedure: string, input: unknown, method: "GET" | "POST" = "POST"): Promise<T> {
    const answer = await this.call<T>(procedure, input, method);
    if (answer.status !== 200 || answer.data === undefined) throw new Error(`${procedure} on ${this.base}: HTTP ${answer.status} ${answer.error?.message ?? ""}`);
    return answer.data;
  }

  async projectId(): Promise<string> {
    const projects = await this.data<{ id: string }[]>("project.list", null, "GET");
    const id = projects[0]?.id;
    if (!id) throw new Error("the user's team has no project");
    return id;
  }

  /** A new session with a title of its own (so no title is generated: the model sees only the test's requests). */
  async session(projectId: string, title: string): Promise<string> {
    return (await this.data<{ id: string }>("session.create", { projectId, title })).id;
  }

  prompt(sessionId: string, text: string): Promise<Answer<{ id: string }>> {
    return this.call("session.prompt", { sessionId, parts: [{ type: "text", text }] });
  }

  /** Opens a live stream (a session's `/api/sessions/<id>/events`, a share link's `/api/share/<id>/events`). */
  async live(path: string, options: { signedIn?: boolean } = {}): Promise<Live> {
    const controller = new AbortController();
    const res = await fetch(`${this.base}${path}`, {
      headers: { accept: "text/event-stream", origin: this.base, ...(options.signedIn === false ? {} : { cookie: this.cookie }) },
      signal: controller.signal,
    });
    if (res.status !== 200) throw new Error(`${path} on ${this.base}: HTTP ${res.status} ${await res.text()}`);
    const reader = sseReader(res);
    // Ending the stream from this side rejects the pump with an AbortError: expected then.
    const pump = reader.pump.catch((error: unknown) => {
      if (!controller.signal.aborted) throw error;
    });
    return { events: reader.events, closed: reader.closed, pump, close: () => controller.abort() };
  }
}

export interface Live {
  /** Every event received, in order. */
  events: Frame[];
  /** Whether the server ended the stream. */
  closed(): boolean;
  pump: Promise<void>;
  close(): void;
}

/** Signs a new user up through the app (the first one gets the first team and its project); returns the cookie. */
export async function signUp(base: string): Promise<string> {
  const email = `instances-${Date.now().toString(36)}@instances.parley.test`;
  const res = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email, name: "Two Instances", password: "instances password 1234" }),
  });
  if (!res.ok) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}
