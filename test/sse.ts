/** One server-sent event as Parley's SSE routes send it (a JSON envelope per `data:` line). */
export interface Frame {
  name: string;
  payload: unknown;
}

/** Reads an SSE response: every `data:` line parsed, in order, and whether the stream ended. */
export function sseReader(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: Frame[] = [];
  let buffer = "";
  let done = false;
  const pump = (async () => {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        return;
      }
      buffer += decoder.decode(chunk.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        for (const line of frame.split("\n")) if (line.startsWith("data: ")) events.push(JSON.parse(line.slice(6)) as Frame);
      }
    }
  })();
  /** Waits (up to 5 s) until `condition` holds, naming `what` and the events seen when it does not. */
  async function until(condition: () => boolean, what: string) {
    const deadline = Date.now() + 5000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${events.map((e) => e.name).join(", ")}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  return { events, until, pump, closed: () => done };
}
