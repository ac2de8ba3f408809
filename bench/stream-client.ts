/**
 * The browsers of bench/stream.ts, in their own process so that their CPU is not
 * counted as the server's. Reads SSE streams and reports, per session, the arrival time
 * (epoch ms, sub-millisecond) of every streamed text delta.
 */
const [base, ...sessions] = process.argv.slice(2);
if (!base || !process.send) throw new Error("usage: forked by bench/stream.ts with a base URL and session ids");

const now = () => performance.timeOrigin + performance.now();
const arrivals: Record<string, number[]> = {};

async function follow(sessionId: string): Promise<void> {
  const times: number[] = [];
  arrivals[sessionId] = times;
  const res = await fetch(`${base}/events/${sessionId}`);
  if (!res.body) throw new Error("no body");
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split("\n").find((line) => line.startsWith("data: "));
      if (!data) continue;
      const event = JSON.parse(data.slice(6)) as { name: string; payload: { part?: { type: string }; delta?: string; status?: { type: string } } };
      if (event.name === "message.part.updated" && event.payload.delta !== undefined && event.payload.part?.type === "text") times.push(now());
      if (event.name === "session.status" && event.payload.status?.type === "idle") {
        void reader.cancel();
        return;
      }
    }
  }
}

process.send({ ready: true });
process.on("message", (message: { go?: boolean }) => {
  if (!message.go) return;
  void Promise.all(sessions.map(follow)).then(() => {
    process.send?.({ arrivals }, () => process.exit(0));
  });
});
