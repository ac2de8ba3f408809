import { type FakeOpenAI, type FakeReply, type RecordedRequest, type StreamStep, reply, startFakeOpenAI, toolCallSteps } from "../../../test/fake-openai";

/**
 * The model of both servers: the fake OpenAI-compatible server of the tests
 * (test/fake-openai.ts), over HTTP, in the test worker. Both instances call it, each with
 * its own API key (`instance-a`, `instance-b`), so every request says which instance made
 * it. Sessions are told apart by a tag in their prompts (`[run:<id>]`): each tag has its
 * own queue of scripted replies; a request for a tag with nothing queued gets a short text.
 * Every request is recorded with the text deltas written (and when) and when it ended.
 */

export type InstanceName = "a" | "b";

const TAG = /\[run:([a-z0-9]+)\]/;

export class ScriptedModel {
  private readonly scripts = new Map<string, FakeReply[]>();
  private count = 0;

  private constructor(readonly fake: FakeOpenAI) {
    fake.route = (request) => {
      const tag = tagOf(request);
      return tag === undefined ? undefined : (this.scripts.get(tag)?.shift() ?? reply.text("Done."));
    };
  }

  static async start(): Promise<ScriptedModel> {
    return new ScriptedModel(await startFakeOpenAI());
  }

  /** The base URL servers are given (OPENAI_BASE_URL). */
  get baseUrl(): string {
    return `${this.fake.url}/v1`;
  }

  /** A new tag: put it in a session's prompts to route its model requests to `script`. */
  tag(): string {
    return `[run:${Date.now().toString(36)}${(this.count++).toString(36)}]`;
  }

  /** Replies for the next requests of the tag's session, in order. */
  script(tag: string, ...replies: FakeReply[]): void {
    const id = TAG.exec(tag)?.[1];
    if (!id) throw new Error(`not a tag: ${tag}`);
    this.scripts.set(id, [...(this.scripts.get(id) ?? []), ...replies]);
  }

  /** The requests made for a tag's session, oldest first. */
  requests(tag: string): RecordedRequest[] {
    const id = TAG.exec(tag)?.[1];
    return this.fake.requests.filter((request) => tagOf(request) === id);
  }

  close(): Promise<void> {
    return this.fake.close();
  }
}

function tagOf(request: RecordedRequest): string | undefined {
  return TAG.exec(JSON.stringify(request.body.messages))?.[1];
}

/** Which instance made a request (by its API key). */
export function instanceOf(request: RecordedRequest): InstanceName | undefined {
  const key = /Bearer instance-([ab])$/.exec(request.headers.authorization ?? "")?.[1];
  return key === "a" || key === "b" ? key : undefined;
}

/** The text of the token `seq` in a counted reply. */
export const token = (seq: number) => `${seq} `;

/** A reply of `n` numbered text deltas ("0 ", "1 ", …), one every `everyMs`, then `stop`. */
export function counted(n: number, everyMs: number): FakeReply {
  const steps: StreamStep[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0 && everyMs > 0) steps.push({ kind: "wait", ms: everyMs });
    steps.push({ kind: "text", text: token(i) });
  }
  return reply.stream([...steps, { kind: "finish", reason: "stop" }, { kind: "usage", usage: { prompt: 10, completion: n } }]);
}

/** The numbers of the tokens in a text made of counted deltas, in order. */
export function tokens(text: string): number[] {
  return text
    .split(" ")
    .filter((t) => t !== "")
    .map(Number);
}

/** A reply that calls one tool with `input` (arguments in one piece), then waits for its result. */
export function callTool(name: string, input: Record<string, unknown>, intro = ""): FakeReply {
  const id = `call_${Math.random().toString(36).slice(2, 10)}`;
  const steps: StreamStep[] = [
    ...(intro ? [{ kind: "text" as const, text: intro }] : []),
    ...toolCallSteps({ id, name, pieces: [JSON.stringify(input)] }),
    { kind: "finish", reason: "tool_calls" },
    { kind: "usage", usage: { prompt: 10, completion: 5 } },
  ];
  return reply.stream(steps);
}

export { reply };
