/**
 * A malicious (or badly broken) OpenAI-compatible provider, as a program of its own: tests
 * start it as a child process (`node test/malicious-provider.ts`; Node runs TypeScript by
 * stripping its types) and point OPENAI_BASE_URL at it. It prints `listening <port>` once
 * it listens (on the port given as its argument, else any). `POST /v1/chat/completions` answers by the request's model name:
 *
 * - `endless-line`: one SSE line that never ends (`data: xxxx…`, no newline), as fast as
 *   the connection takes it;
 * - `empty-choices`: chunks with an empty `choices` array, endlessly, before any output;
 * - `redirect-bomb`: a 302 to another origin (`localhost` instead of `127.0.0.1`) whose
 *   answer is a gzip bomb: 8 GiB of zeros, compressed on the fly;
 * - `gzip-bomb`: the same bomb from the provider's own origin;
 * - `huge-delta`: one content delta of 200 MB, then the end;
 * - `endless-text`: small content deltas, endlessly (a part that never stops growing);
 * - `keepalive`: `: keepalive` comment lines every 100 ms, forever, and nothing else;
 * - `keepalive-after-text`: one content delta, then the same drip;
 * - `slow-text`: a content delta every 100 ms, forever (never idle, never done).
 *
 * `GET /requests` answers the number of chat requests per model so far (JSON).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";

const MiB = 1024 * 1024;
const requests: Record<string, number> = {};

function chunk(delta: Record<string, unknown> | undefined): string {
  const choices = delta === undefined ? [] : [{ index: 0, delta, finish_reason: null }];
  return `data: ${JSON.stringify({ id: "chatcmpl-evil", object: "chat.completion.chunk", created: 0, model: "evil", choices })}\n\n`;
}

const SSE = { "content-type": "text/event-stream", "cache-control": "no-cache" };

/** Write `next()` whenever the connection can take more, until it closes or `next` gives nothing. */
function pump(res: http.ServerResponse, next: () => string | Buffer | undefined): void {
  const write = () => {
    for (;;) {
      if (res.destroyed) return;
      const data = next();
      if (data === undefined) return void res.end();
      if (!res.write(data)) return void res.once("drain", write);
    }
  };
  write();
}

/** Every `ms`, `data`, until the connection closes. */
function drip(res: http.ServerResponse, ms: number, data: () => string): void {
  const timer = setInterval(() => {
    if (res.destroyed) clearInterval(timer);
    else res.write(data());
  }, ms);
  res.on("close", () => clearInterval(timer));
}

/** 8 GiB of zeros, gzip-compressed as it is read. */
function gzipBomb(res: http.ServerResponse): void {
  res.writeHead(200, { ...SSE, "content-encoding": "gzip" });
  const gzip = zlib.createGzip({ level: 1 });
  gzip.pipe(res);
  const zeros = Buffer.alloc(MiB);
  let left = 8 * 1024;
  const write = () => {
    while (left > 0 && !res.destroyed) {
      left--;
      if (!gzip.write(zeros)) return void gzip.once("drain", write);
    }
    gzip.end();
  };
  res.on("close", () => gzip.destroy());
  write();
}

function answer(model: string, res: http.ServerResponse, port: number): void {
  switch (model) {
    case "endless-line": {
      res.writeHead(200, SSE);
      const filler = "x".repeat(64 * 1024);
      let first = true;
      pump(res, () => {
        if (!first) return filler;
        first = false;
        return `data: ${filler}`;
      });
      return;
    }
    case "empty-choices": {
      res.writeHead(200, SSE);
      const batch = chunk(undefined).repeat(256);
      pump(res, () => batch);
      return;
    }
    case "redirect-bomb":
      res.writeHead(302, { location: `http://localhost:${port}/bomb` });
      res.end();
      return;
    case "gzip-bomb":
      gzipBomb(res);
      return;
    case "huge-delta": {
      res.writeHead(200, SSE);
      const prefix = `data: {"id":"chatcmpl-evil","object":"chat.completion.chunk","created":0,"model":"evil","choices":[{"index":0,"delta":{"content":"`;
      const filler = "y".repeat(MiB);
      let left = 200;
      let stage = 0;
      pump(res, () => {
        stage++;
        if (stage === 1) return prefix;
        if (left-- > 0) return filler;
        if (stage === 202) return `"},"finish_reason":null}]}\n\n${chunk({})}data: [DONE]\n\n`;
        return undefined;
      });
      return;
    }
    case "endless-text": {
      res.writeHead(200, SSE);
      const delta = chunk({ content: "z".repeat(16 * 1024) });
      pump(res, () => delta);
      return;
    }
    case "keepalive":
      res.writeHead(200, SSE);
      res.flushHeaders();
      drip(res, 100, () => ": keepalive\n\n");
      return;
    case "keepalive-after-text":
      res.writeHead(200, SSE);
      res.write(chunk({ role: "assistant", content: "Thinking" }));
      drip(res, 100, () => ": keepalive\n\n");
      return;
    case "slow-text":
      res.writeHead(200, SSE);
      drip(res, 100, () => chunk({ content: "." }));
      return;
    case "retry-far-future":
      // A rate limit whose retry-after is an HTTP date millennia away.
      res.writeHead(429, { "content-type": "application/json", "retry-after": "Fri, 31 Dec 9999 23:59:59 GMT" });
      res.end(JSON.stringify({ error: { message: "Rate limit reached, try again later", type: "rate_limit" } }));
      return;
    default:
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `unknown model ${model}` } }));
  }
}

const server = http.createServer((req, res) => {
  const port = (server.address() as AddressInfo).port;
  if (req.method === "GET" && req.url === "/requests") {
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify(requests));
  }
  if (req.method === "GET" && req.url === "/bomb") return gzipBomb(res);
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (data: string) => (body += data));
  req.on("end", () => {
    let model = "";
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === "object" && parsed !== null && "model" in parsed && typeof parsed.model === "string") model = parsed.model;
    } catch {
      // Not JSON: answered as an unknown model.
    }
    requests[model] = (requests[model] ?? 0) + 1;
    answer(model, res, port);
  });
});

// The port to listen on (a test restarting it gives the same one); 0: any.
server.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  console.log(`listening ${(server.address() as AddressInfo).port}`);
});
