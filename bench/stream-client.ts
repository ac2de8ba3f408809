/**
 * The browsers of bench:stream and bench:load, in their own process so that their CPU is
 * not counted as the server's: one SSE connection per stream to the app's real endpoints
 * — a member's session stream (/api/sessions/<id>/events, signed in by cookie) or a share
 * link's (/api/share/<id>/events, anonymous). Every text delta the provider wrote carries
 * its sequence number and the moment it was written (bench/provider.ts); this process
 * notes, for each one it receives, the time since then on the shared monotonic clock, and
 * which sequence numbers it got (so deltas lost or received twice show).
 *
 * IPC: `{ follow: [sessionIds], deltas }` (member streams on the app given on the command
 * line) or `{ watch: [{ url, signedIn }], deltas }` (any streams, on any instance) →
 * connects, answers `{ ready }` once every stream sent `stream.ready`; each stream is done
 * when its session's run goes idle again, then answers `{ result }` and closes the
 * connections. With `follow`, a stream that fails answers `{ error }`; with `watch`, it is
 * counted in `failed` (its deltas as lost) and the others go on.
 */
import http from "node:http";

const [base, cookie] = process.argv.slice(2);
if (!base || cookie === undefined || !process.send) throw new Error("usage: forked by a bench with the app's URL and a session cookie");

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
  /** Streams that failed (refused, cut before their run ended). */
  failed: number;
  /** What the first failures were. */
  errors: string[];
}

export interface Watch {
  url: string;
  /** Sends the session cookie (a member's stream); a share link's stream goes without. */
  signedIn: boolean;
}

interface Frame {
  name: string;
  payload: { delta?: string; part?: { type?: string }; status?: { type?: string } };
}

interface Outcome {
  lost: number;
  duplicates: number;
  events: number;
}

function watch(stream: Watch, deltas: number, latencies: number[], emitted: number[], onReady: () => void): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const seen = new Uint8Array(deltas);
    let duplicates = 0;
    let events = 0;
    let busy = false;
    let done = false;
    const headers: Record<string, string> = { accept: "text/event-stream", ...(stream.signedIn ? { cookie } : {}) };
    const req = http.get(stream.url, { headers }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${stream.url}: HTTP ${res.statusCode}`));
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
              done = true;
              req.destroy();
              return resolve({ lost: seen.reduce((n, got) => n + (got ? 0 : 1), 0), duplicates, events });
            }
          }
        }
      });
      res.on("end", () => {
        if (!done) reject(new Error(`${stream.url}: the server ended the stream before the run did`));
      });
      res.on("error", reject);
    });
    req.on("error", (error) => {
      if (!done) reject(error);
    });
  });
}

process.on("message", (message: { follow?: string[]; watch?: Watch[]; deltas?: number }) => {
  const streams = message.watch ?? message.follow?.map((id) => ({ url: `${base}/api/sessions/${id}/events`, signedIn: true }));
  if (!streams) return;
  const strict = message.watch === undefined;
  const deltas = message.deltas ?? 0;
  const latencies: number[] = [];
  const emitted: number[] = [];
  const errors: string[] = [];
  let failed = 0;
  let ready = 0;
  const onReady = () => {
    if (++ready === streams.length) process.send?.({ ready: true });
  };
  const each = streams.map((stream) => {
    let counted = false;
    const readyOnce = () => {
      if (counted) return;
      counted = true;
      onReady();
    };
    return watch(stream, deltas, latencies, emitted, readyOnce).catch((error: unknown) => {
      if (strict) throw error;
      failed++;
      if (errors.length < 5) errors.push(String(error));
      // A stream that never got ready must not hold the others' `ready` back.
      readyOnce();
      return { lost: deltas, duplicates: 0, events: 0 };
    });
  });
  Promise.all(each).then(
    (outcomes) => {
      const result: ClientResult = {
        latencies,
        emitted,
        lost: outcomes.reduce((n, s) => n + s.lost, 0),
        duplicates: outcomes.reduce((n, s) => n + s.duplicates, 0),
        events: outcomes.reduce((n, s) => n + s.events, 0),
        failed,
        errors,
      };
      process.send?.({ result });
    },
    (error: unknown) => process.send?.({ error: String(error) }),
  );
});
process.send({ started: true });
