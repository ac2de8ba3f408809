/**
 * A full garbage collection of the app's Next.js server, on the bench's demand, through
 * Node's inspector: SIGUSR1 opens the inspector of a running Node process (on the port its
 * `--inspect-port` names, here one the bench chose on 127.0.0.1), and the DevTools
 * protocol's `HeapProfiler.collectGarbage` runs a full collection and answers once it is
 * done. Benchmarks of CPU use it to end each run with its own garbage collected: V8
 * otherwise collects a run's garbage whenever its heap or its memory reducer (seconds
 * after the work) decides, often inside a later run.
 *
 * Bench-only: the app's launcher is started with `--inspect-port` in NODE_OPTIONS (no
 * inspector is open until the signal) and the inspector listens on 127.0.0.1 only.
 */
import { tree } from "./process-tree";

interface Target {
  webSocketDebuggerUrl?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** NODE_OPTIONS for the app so that a signalled process opens its inspector on `port` (127.0.0.1). */
export function inspectPortOption(port: number): string {
  return [process.env.NODE_OPTIONS, `--inspect-port=127.0.0.1:${port}`].filter(Boolean).join(" ");
}

export class InspectorGc {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; error?: { message: string } };
      const waiter = message.id === undefined ? undefined : this.waiting.get(message.id);
      if (!waiter || message.id === undefined) return;
      this.waiting.delete(message.id);
      if (message.error) waiter.reject(new Error(`inspector: ${message.error.message}`));
      else waiter.resolve();
    });
  }

  /** Open the inspector of the Next.js server among `appPid`'s processes (started with inspectPortOption(port)). */
  static async open(appPid: number, port: number): Promise<InspectorGc> {
    const server = tree(appPid).find((p) => p.name.startsWith("next-server"));
    if (!server) throw new Error("the app's Next.js server process was not found");
    process.kill(server.pid, "SIGUSR1");
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Target[];
        const url = targets[0]?.webSocketDebuggerUrl;
        if (url) {
          const socket = new WebSocket(url);
          await new Promise<void>((resolve, reject) => {
            socket.addEventListener("open", () => resolve(), { once: true });
            socket.addEventListener("error", () => reject(new Error(`could not connect to the inspector at ${url}`)), { once: true });
          });
          return new InspectorGc(socket);
        }
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`the Next.js server's inspector did not open on port ${port}: ${String(error)}`);
      }
      await sleep(100);
    }
  }

  /** A full garbage collection; resolves when it is done. */
  collect(): Promise<void> {
    const id = this.next++;
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method: "HeapProfiler.collectGarbage" }));
    });
  }

  close(): void {
    this.socket.close();
  }
}
