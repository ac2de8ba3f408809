/**
 * The browsers of bench:stream, in their own process so that their CPU is not counted as
 * the server's: one SSE connection per session to the app's real endpoint
 * (/api/sessions/<id>/events, signed in by cookie). Every text delta the provider wrote
 * carries its sequence number and the moment it was written (bench/provider.ts); this
 * process notes, for each one it receives, the time since then on the shared monotonic
 * clock, and which sequence numbers it got (so deltas lost or received twice show).
 *
 * IPC: `{ follow: [sessionIds], deltas }` → connects, answers `{ ready }` once every stream
 * sent `stream.ready`; each session is done when its run goes idle again, then answers
 * `{ result }` and closes the connections.
 */
import http from "node:http";

const [base, cookie] = process.argv.slice(2);
if (!base || cookie === undefined || !process.send) throw new Error("usage: forked by bench/stream.ts with the app's URL and a session cookie");

const clock = () => Number(process.hrtime.bigint()) / 1e6;
const TOKEN = /(\d+)@(\d+\.\d+) /g;

export interface ClientResult {
  /** ms from the provider writing a delta to this process reading it, every delta received. */
  latencies: number[];
  /** When the provider wrote each of those deltas (ms on the shared monotonic clock), in the same order. */
  emitted: number[];
  /** Deltas expected and not received, received more than once, and SSE events of streamed text received. */
  lost: number;
  duplicates: number;
  events: number;
}

interface Frame {
  name: string;
  payload: { delta?: string; part?: { type?: string }; status?: { type?: string } };
}

function follow(sessionId: string, deltas: number, latencies: number[], emitted: number[], onReady: () => void): Promise<{ lost: number; duplicates: number; events: number }> {
  return new Promise((resolve, reject) => {
    const seen = new Uint8Array(deltas);
    let duplicates = 0;
    let events = 0;
    let busy = false;
    const req = http.get(`${base}/api/sessions/${sessionId}/events`, { headers: { cookie, accept: "text/event-stream" } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`events of ${sessionId}: HTTP ${res.statusCode}`));
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (text: string) => {
        const at = clock();
        buffer += text;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = raw.indexOf("data: ");
          if (data < 0) continue;
          const frame = JSON.parse(raw.slice(data + 6, raw.indexOf("\n", data) < 0 ? undefined : raw.indexOf("\n", data))) as Frame;
          if (frame.name === "stream.ready") onReady();
          else if (frame.name === "message.part.updated" && frame.payload.delta !== undefined && frame.payload.part?.type === "text") {
            events++;
            for (const match of frame.payload.delta.matchAll(TOKEN)) {
              const seq = Number(match[1]);
              if (seen[seq]) duplicates++;
              seen[seq] = 1;
              const sent = Number(match[2]);
              latencies.push(at - sent);
              emitted.push(sent);
            }
          } else if (frame.name === "session.status") {
            if (frame.payload.status?.type === "busy") busy = true;
            else if (frame.payload.status?.type === "idle" && busy) {
              req.destroy();
              return resolve({ lost: seen.reduce((n, got) => n + (got ? 0 : 1), 0), duplicates, events });
            }
          }
        }
      });
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

process.on("message", (message: { follow?: string[]; deltas?: number }) => {
  const sessions = message.follow;
  if (!sessions) return;
  const latencies: number[] = [];
  const emitted: number[] = [];
  let ready = 0;
  const onReady = () => {
    if (++ready === sessions.length) process.send?.({ ready: true });
  };
  Promise.all(sessions.map((id) => follow(id, message.deltas ?? 0, latencies, emitted, onReady))).then(
    (each) => {
      const result: ClientResult = {
        latencies,
        emitted,
        lost: each.reduce((n, s) => n + s.lost, 0),
        duplicates: each.reduce((n, s) => n + s.duplicates, 0),
        events: each.reduce((n, s) => n + s.events, 0),
      };
      process.send?.({ result });
    },
    (error: unknown) => process.send?.({ error: String(error) }),
  );
});
process.send({ started: true });
