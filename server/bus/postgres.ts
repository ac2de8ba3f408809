import pg from "pg";
import { z } from "zod";
import { type Bus, type Envelope, isInternal, lookup } from "./bus";

/**
 * Carries bus events between server processes over PostgreSQL LISTEN/NOTIFY (SPEC §14).
 * Every local publish is NOTIFYed in publish order on one connection; each process
 * LISTENs and delivers what other processes sent, in arrival order. NOTIFY payloads are
 * limited to 8000 bytes: larger events are parked in "EventPayload" and sent by id.
 */

export const CHANNEL = "parley_bus";
const INLINE_LIMIT = 7000; // bytes, leaves room for the wrapper under NOTIFY's 8000
const PARKED_TTL_MS = 10 * 60 * 1000;

const Wire = z.union([
  z.object({ o: z.string(), es: z.array(z.unknown()) }),
  z.object({ o: z.string(), r: z.string() }),
]);

const EnvelopeSchema = z.object({
  id: z.string(),
  name: z.string(),
  payload: z.unknown(),
  scope: z.object({ teamId: z.string(), sessionId: z.string().optional() }),
  time: z.number(),
});

export interface Bridge {
  /** Resolves once every event published so far has been handed to PostgreSQL. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface BridgeOptions {
  log?: (message: string, error?: unknown) => void;
  /** Turns an event into what is sent to other instances (e.g. compact text deltas). */
  encode?: (event: Envelope) => Envelope;
  /** First and longest wait between reconnection attempts (ms). */
  retry?: { initialMs: number; maxMs: number };
  /** The connections' application_name (what pg_stat_activity shows). */
  name?: string;
  /** Called after a lost connection is back: events from other instances may have been missed. */
  onReconnect?: () => void;
}

/** Events kept for sending while the connection is down; beyond that the oldest go. */
const MAX_QUEUED = 10_000;

/** Errors that mean the connection itself is gone (not that one query was refused). */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("08") || code.startsWith("57P"))) return true;
  return /Connection terminated|connection error|not queryable|ECONNRESET|ECONNREFUSED|EPIPE/i.test(error.message);
}

/** One line for a log: the database's message and code, not the whole error object. */
export function describeDbError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? `${error.message} (${code})` : error.message;
}

interface Connection {
  listener: pg.Client;
  sender: pg.Client;
}

/**
 * Bridge `bus` to the other instances. If the connection to PostgreSQL is lost (the
 * server restarted, a network blip), the bridge reconnects with backoff and sends what
 * was published meanwhile; events other instances sent while it was away are missed
 * (their browsers resync when their event stream reconnects).
 */
export async function bridge(bus: Bus, connectionString: string, options: BridgeOptions = {}): Promise<Bridge> {
  const log = options.log ?? console.error;
  const encode = options.encode ?? ((event: Envelope) => event);
  const retry = options.retry ?? { initialMs: 250, maxMs: 5_000 };
  let closed = false;
  let current: Connection | undefined;
  let reconnecting: ReturnType<typeof setTimeout> | undefined;
  let waitMs = retry.initialMs;

  let sentSinceSweep = 0;
  const queue: Envelope[] = [];
  let dropped = 0;
  let pumping: Promise<void> | undefined;
  let receiving: Promise<void> = Promise.resolve();

  const park = async (sender: pg.Client, json: string): Promise<string> => {
    const parked = await sender.query<{ id: string }>('INSERT INTO "EventPayload" (payload) VALUES ($1) RETURNING id::text AS id', [json]);
    if (++sentSinceSweep >= 100) {
      sentSinceSweep = 0;
      await sender.query(`DELETE FROM "EventPayload" WHERE "createdAt" < now() - interval '${PARKED_TTL_MS / 1000} seconds'`);
    }
    return parked.rows[0]?.id ?? "";
  };

  /**
   * Send what is queued, in order. Events that arrive while a NOTIFY is in flight are
   * sent together in the next one (as many as fit), so a burst of streamed deltas costs
   * a few round trips, not one each. An event leaves the queue only once it was sent:
   * when the connection drops, the rest waits for the reconnection.
   */
  const pump = async (connection: Connection) => {
    const { sender } = connection;
    while (queue.length && current === connection) {
      const batch: string[] = [];
      let size = 0;
      for (const event of queue) {
        const json = JSON.stringify(encode(event));
        const bytes = Buffer.byteLength(json);
        if (bytes > INLINE_LIMIT) {
          if (batch.length) break;
          const id = await park(sender, json);
          await sender.query("SELECT pg_notify($1, $2)", [CHANNEL, JSON.stringify({ o: bus.instanceId, r: id })]);
          queue.shift();
          break;
        }
        if (size + bytes + 1 > INLINE_LIMIT) break;
        batch.push(json);
        size += bytes + 1;
      }
      if (batch.length) {
        await sender.query("SELECT pg_notify($1, $2)", [CHANNEL, `{"o":${JSON.stringify(bus.instanceId)},"es":[${batch.join(",")}]}`]);
        queue.splice(0, batch.length);
      }
    }
  };
  const startPump = () => {
    const connection = current;
    if (!connection || pumping || !queue.length) return;
    pumping = pump(connection)
      .catch((error: unknown) => {
        if (isConnectionError(error)) {
          lost(connection, error);
        } else {
          // The database refused what was sent: drop it rather than retry it forever.
          queue.length = 0;
          log(`[bus] could not forward events to other instances`, error);
        }
      })
      .finally(() => {
        pumping = undefined;
        startPump();
      });
  };
  const unhook = bus.onPublish((event) => {
    if (closed) return;
    queue.push(event);
    // Only while nothing is being sent: a batch in flight counts on the queue's head.
    if (queue.length > MAX_QUEUED && !pumping) {
      queue.shift();
      if (dropped++ === 0) log(`[bus] more than ${MAX_QUEUED} events wait for the database: dropping the oldest`);
    }
    startPump();
  });

  /** `reader` is the listening connection: its queries (one at a time, in arrival order)
   * never overlap the sender's. */
  const receive = async (reader: pg.Client, raw: string) => {
    const wire = Wire.parse(JSON.parse(raw));
    if (wire.o === bus.instanceId) return;
    let bodies: unknown[];
    if ("es" in wire) {
      bodies = wire.es;
    } else {
      const row = await reader.query<{ payload: string }>('SELECT payload FROM "EventPayload" WHERE id = $1', [wire.r]);
      const payload = row.rows[0]?.payload;
      if (payload === undefined) throw new Error(`parked event ${wire.r} is gone`);
      bodies = [JSON.parse(payload)];
    }
    for (const body of bodies) {
      const event = EnvelopeSchema.parse(body);
      const def = lookup(event.name);
      if (!def) {
        // Server-coordination events this process has no part in (e.g. a seeding script).
        if (isInternal(event.name)) continue;
        throw new Error(`unknown event "${event.name}"`);
      }
      bus.deliver({ ...event, payload: def.schema.parse(event.payload) });
    }
  };

  /** Close both clients. Ending a client whose connection already broke rejects with that
   * same break, which was reported when it happened: settled, not rethrown. */
  const end = (connection: Connection) => Promise.allSettled([connection.listener.end(), connection.sender.end()]);

  /** The connection is gone: forget it, close what is left of it, and reconnect. */
  function lost(connection: Connection, error?: unknown): void {
    if (current !== connection) return;
    current = undefined;
    void end(connection);
    if (closed) return;
    log(`[bus] lost the database connection${error ? ` (${describeDbError(error)})` : ""}; reconnecting`);
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || reconnecting) return;
    reconnecting = setTimeout(() => {
      reconnecting = undefined;
      open().then(
        (connection) => {
          if (closed) {
            void end(connection);
            return;
          }
          waitMs = retry.initialMs;
          current = connection;
          log(`[bus] reconnected to the database`);
          if (dropped) log(`[bus] ${dropped} event(s) were dropped while disconnected`);
          dropped = 0;
          startPump();
          options.onReconnect?.();
        },
        () => {
          waitMs = Math.min(waitMs * 2, retry.maxMs);
          scheduleReconnect();
        },
      );
    }, waitMs);
    reconnecting.unref?.();
  }

  async function open(): Promise<Connection> {
    const settings = { connectionString, application_name: options.name ?? "parley-bus" };
    const connection: Connection = { listener: new pg.Client(settings), sender: new pg.Client(settings) };
    const { listener, sender } = connection;
    // Until `current` is this connection, its errors only fail the attempt.
    listener.on("error", (error) => lost(connection, error));
    sender.on("error", (error) => lost(connection, error));
    listener.on("end", () => lost(connection));
    sender.on("end", () => lost(connection));
    listener.on("notification", (message) => {
      // After close() began, nothing more is delivered (the sender may already be ending).
      if (closed || message.channel !== CHANNEL || message.payload === undefined) return;
      const raw = message.payload;
      receiving = receiving
        .then(() => receive(listener, raw))
        .catch((error: unknown) => log("[bus] dropped an event from another instance", error));
    });
    try {
      await Promise.all([listener.connect(), sender.connect()]);
      await listener.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await end(connection);
      throw error;
    }
    return connection;
  }

  current = await open();

  return {
    flush: async () => {
      // Handed over, or waiting for a reconnection that will send it.
      while (!closed && queue.length) {
        if (pumping) await pumping;
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      unhook();
      closed = true;
      if (reconnecting) clearTimeout(reconnecting);
      reconnecting = undefined;
      await pumping;
      await receiving;
      const connection = current;
      current = undefined;
      if (connection) await end(connection);
    },
  };
}
