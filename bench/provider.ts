/**
 * The model provider of bench:stream, in its own process: an OpenAI-compatible server
 * (`POST /v1/chat/completions`, streamed) that answers every chat request with a fixed
 * number of text deltas at a fixed rate per stream, each stream on its own schedule
 * (start + k / rate, so streams are not in lockstep). Every delta is the text
 * `<seq>@<t> `, where t is the moment it is written to the socket (ms of the system's
 * monotonic clock, which every process on the machine shares): a client of the app that
 * receives the delta knows exactly how long it took, and which deltas it never got.
 * Title requests get a short title at once.
 *
 * With `together: n`, answers hold their first delta until n of them are open, so that n
 * streams then run at once (each still on its own schedule, offset within one interval):
 * the load is n concurrent streams, whatever it cost the app to start them.
 *
 * Forked by bench/stream.ts: sends `{ port }` when listening; takes `{ deltas, rate,
 * together? }` for the answers that follow; `{ peak: true }` answers `{ peak }`, the most
 * answers that streamed at once since the last script.
 */
import http from "node:http";

let script = { deltas: 10, rate: 50, together: 1 };
/** Answers waiting for the others of their group to open (together > 1). */
let waiting: Array<() => void> = [];
let streaming = 0;
let peak = 0;
const clock = () => Number(process.hrtime.bigint()) / 1e6;

function chunk(id: string, delta: Record<string, string>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: "bench", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function usage(id: string, completion: number): string {
  return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: "bench", choices: [], usage: { prompt_tokens: 100, completion_tokens: completion, total_tokens: 100 + completion } })}\n\n`;
}

let streams = 0;

function answer(res: http.ServerResponse, title: boolean): void {
  const id = `chatcmpl-${++streams}`;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(chunk(id, { role: "assistant", content: "" }));
  const end = (tokens: number) => {
    res.write(chunk(id, {}, "stop"));
    res.write(usage(id, tokens));
    res.end("data: [DONE]\n\n");
  };
  if (title) {
    res.write(chunk(id, { content: "Bench session" }));
    return end(2);
  }
  const { deltas, rate, together } = script;
  let seq = 0;
  let closed = false;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    streaming--;
  };
  res.on("close", () => {
    closed = true;
    finish();
  });
  const go = (offset: number) => {
    const start = clock() + offset;
    streaming++;
    peak = Math.max(peak, streaming);
    const next = () => {
      if (closed) return;
      const t = clock();
      res.write(chunk(id, { content: `${seq}@${t.toFixed(3)} ` }));
      seq++;
      if (seq >= deltas) {
        finish();
        return end(deltas * 6);
      }
      setTimeout(next, Math.max(0, start + (seq * 1000) / rate - clock()));
    };
    setTimeout(next, offset);
  };
  if (together <= 1) return go(0);
  waiting.push(() => go(Math.random() * (1000 / rate)));
  if (waiting.length >= together) {
    const group = waiting;
    waiting = [];
    for (const start of group) start();
  }
}

const server = http.createServer((req, res) => {
  if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
    res.writeHead(404).end();
    return;
  }
  const body: Buffer[] = [];
  req.on("data", (b: Buffer) => body.push(b));
  req.on("end", () => {
    const text = Buffer.concat(body).toString();
    answer(res, text.includes("Generate a short title"));
  });
});

process.on("message", (message: { deltas?: number; rate?: number; together?: number; peak?: boolean }) => {
  if (message.peak) {
    process.send?.({ peak });
    return;
  }
  if (typeof message.deltas === "number" && typeof message.rate === "number") {
    script = { deltas: message.deltas, rate: message.rate, together: message.together ?? 1 };
    waiting = [];
    peak = 0;
  }
  process.send?.({ ok: true });
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.send?.({ port: typeof address === "object" && address ? address.port : 0 });
});
