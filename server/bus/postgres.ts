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
  const queue: Envelope[] = [];
  let pumping: Promise<void> | undefined;

  const park = async (json: string): Promise<string> => {
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
   * a few round trips, not one each.
   */
  const pump = async () => {
    while (queue.length) {
      const batch: string[] = [];
      let size = 0;
      while (queue.length) {
        const json = JSON.stringify(encode(queue[0] as Envelope));
        const bytes = Buffer.byteLength(json);
        if (bytes > INLINE_LIMIT) {
          if (batch.length) break;
          queue.shift();
          const id = await park(json);
          await sender.query("SELECT pg_notify($1, $2)", [CHANNEL, JSON.stringify({ o: bus.instanceId, r: id })]);
          continue;
        }
        if (size + bytes + 1 > INLINE_LIMIT) break;
        queue.shift();
        batch.push(json);
        size += bytes + 1;
      }
      if (batch.length) {
        await sender.query("SELECT pg_notify($1, $2)", [CHANNEL, `{"o":${JSON.stringify(bus.instanceId)},"es":[${batch.join(",")}]}`]);
      }
    }
  };
  const unhook = bus.onPublish((event) => {
    queue.push(event);
    pumping ??= pump()
      .catch((error: unknown) => {
        queue.length = 0;
        log(`[bus] could not forward events to other instances`, error);
      })
      .finally(() => {
        pumping = undefined;
      });
    sending = pumping;
  });

  let receiving: Promise<void> = Promise.resolve();
  const receive = async (raw: string) => {
    const wire = Wire.parse(JSON.parse(raw));
    if (wire.o === bus.instanceId) return;
    let bodies: unknown[];
    if ("es" in wire) {
      bodies = wire.es;
    } else {
      const row = await sender.query<{ payload: string }>('SELECT payload FROM "EventPayload" WHERE id = $1', [wire.r]);
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
    flush: async () => {
      while (pumping) await pumping;
    },
    async close() {
      unhook();
      closed = true;
      await sending;
      await receiving;
      await Promise.all([listener.end(), sender.end()]);
    },
  };
}
