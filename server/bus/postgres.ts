import pg from "pg";
import { z } from "zod";
import { type Bus, type Envelope, lookup } from "./bus";

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
  z.object({ o: z.string(), e: z.unknown() }),
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
}

export async function bridge(bus: Bus, connectionString: string, options: BridgeOptions = {}): Promise<Bridge> {
  const log = options.log ?? console.error;
  const encode = options.encode ?? ((event: Envelope) => event);
  const listener = new pg.Client({ connectionString });
  const sender = new pg.Client({ connectionString });
  await Promise.all([listener.connect(), sender.connect()]);
  let closed = false;

  let sending: Promise<void> = Promise.resolve();
  let sentSinceSweep = 0;
  const send = async (original: Envelope) => {
    const event = encode(original);
    const json = JSON.stringify(event);
    let wire: string;
    if (Buffer.byteLength(json) <= INLINE_LIMIT) {
      wire = JSON.stringify({ o: bus.instanceId, e: event });
    } else {
      const parked = await sender.query<{ id: string }>(
        'INSERT INTO "EventPayload" (payload) VALUES ($1) RETURNING id::text AS id',
        [json],
      );
      wire = JSON.stringify({ o: bus.instanceId, r: parked.rows[0]?.id });
      if (++sentSinceSweep >= 100) {
        sentSinceSweep = 0;
        await sender.query(`DELETE FROM "EventPayload" WHERE "createdAt" < now() - interval '${PARKED_TTL_MS / 1000} seconds'`);
      }
    }
    await sender.query("SELECT pg_notify($1, $2)", [CHANNEL, wire]);
  };
  const unhook = bus.onPublish((event) => {
    sending = sending.then(() => send(event)).catch((error: unknown) => log(`[bus] could not forward ${event.name} to other instances`, error));
  });

  let receiving: Promise<void> = Promise.resolve();
  const receive = async (raw: string) => {
    const wire = Wire.parse(JSON.parse(raw));
    if (wire.o === bus.instanceId) return;
    let body: unknown;
    if ("e" in wire) {
      body = wire.e;
    } else {
      const row = await sender.query<{ payload: string }>('SELECT payload FROM "EventPayload" WHERE id = $1', [wire.r]);
      const payload = row.rows[0]?.payload;
      if (payload === undefined) throw new Error(`parked event ${wire.r} is gone`);
      body = JSON.parse(payload);
    }
    const event = EnvelopeSchema.parse(body);
    const def = lookup(event.name);
    if (!def) throw new Error(`unknown event "${event.name}"`);
    bus.deliver({ ...event, payload: def.schema.parse(event.payload) });
  };
  listener.on("notification", (message) => {
    // After close() began, nothing more is delivered (the sender may already be ending).
    if (closed || message.channel !== CHANNEL || message.payload === undefined) return;
    const raw = message.payload;
    receiving = receiving
      .then(() => receive(raw))
      .catch((error: unknown) => log("[bus] dropped an event from another instance", error));
  });
  listener.on("error", (error) => log("[bus] listener connection failed", error));
  sender.on("error", (error) => log("[bus] sender connection failed", error));
  await listener.query(`LISTEN ${CHANNEL}`);

  return {
    flush: () => sending,
    async close() {
      unhook();
      closed = true;
      await sending;
      await receiving;
      await Promise.all([listener.end(), sender.end()]);
    },
  };
}
