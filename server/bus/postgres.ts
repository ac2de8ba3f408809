import pg from "pg";
import { z } from "zod";
import { type Bus, type Envelope, lookup, reaches } from "./bus";
import { logger } from "../log";

const log = logger("bus");

/**
 * Carries bus events between server processes over PostgreSQL LISTEN/NOTIFY. Every local
 * publish is NOTIFYed in publish order on one connection; each process LISTENs and
 * delivers what other processes sent, in arrival order. NOTIFY payloads are limited to
 * 8000 bytes: larger events are parked in "EventPayload" and sent by id.
 */

export const CHANNEL = "parley_bus";
const INLINE_LIMIT = 7000; // bytes, leaves room for the wrapper under NOTIFY's 8000
const PARKED_TTL_MS = 10 * 60 * 1000;
/** Parked payloads are swept of expired ones once every this many parked sends. */
const SWEEP_EVERY = 100;
/** Events kept for sending while the connection is down; beyond that the oldest go. */
const MAX_QUEUED = 10_000;

/**
 * NOTIFYs of one instance are at least this far apart (ms): what is published meanwhile
 * waits and goes out together. A NOTIFY costs PostgreSQL a transaction and a wake-up of
 * every listening instance whatever it carries, so under load (hundreds of streams'
 * deltas a second) batching them is most of what the bridge costs; an event after a quiet
 * moment goes out at once.
 */
export const LINGER_MS = 5;

/** How often a bridge with optional events looks for other instances (ms). */
const PEER_CHECK_MS = 5_000;

/** How long a new instance waits for the others to answer its hello (ms). */
export const HELLO_WAIT_MS = 1_000;

/**
 * One NOTIFY: a batch of events inline, the id of one parked event, a new instance saying
 * hello (h: 1), or another instance answering it (h: 2, "I send you everything from now
 * on"). A hello names the bridges it is for (`n`, the bridges' name: only those answer);
 * an answer names the instance whose hello it answers (`to`): every instance hears every
 * NOTIFY, and a new instance counts only the answers to its own hello. (Older instances
 * sent neither field: their hellos are answered by all, their answers count for nobody.)
 */
const Wire = z.union([
  z.object({ o: z.string(), es: z.array(z.unknown()) }),
  z.object({ o: z.string(), r: z.string() }),
  z.object({ o: z.string(), h: z.union([z.literal(1), z.literal(2)]), n: z.string().optional(), to: z.string().optional() }),
]);

/**
 * One event as sent. `internal` marks an event for no audience, so a process that does
 * not know its name (a script that never loaded the module defining it) can skip it
 * instead of reporting it.
 */
const Sent = z.object({
  id: z.string(),
  name: z.string(),
  payload: z.unknown(),
  scope: z.object({ teamId: z.string(), sessionId: z.string().optional() }),
  time: z.number(),
  internal: z.literal(true).optional(),
});

export interface Bridge {
  /** Resolves once every event published so far has been handed to PostgreSQL. */
  flush(): Promise<void>;
  close(): Promise<void>;
  /** Whether the bridge has a working connection now (false while it reconnects). */
  readonly connected: boolean;
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
  /**
   * Events sent only while another instance is known to listen — one whose bridge has the
   * same `name` — found by looking at the database's connections every few seconds and
   * when an instance starts: it says hello, every other instance answers once it sends it
   * everything, and connect() resolves after those answers (at most HELLO_WAIT_MS). So an
   * instance gets every such event published after it connected (what was published
   * before is in the database it reads then), and a lone server NOTIFYs nothing at all.
   */
  optional?: (event: Envelope) => boolean;
}

/** `optional` for a server: every event is sent only while another instance listens. */
export const everyEvent = (): boolean => true;

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

/** The two connections of a bridge: LISTEN on one, NOTIFY on the other, so neither waits for the other. */
interface Connection {
  listener: pg.Client;
  sender: pg.Client;
  /** The backend process ids of both, to tell this bridge's connections from other instances'. */
  pids: number[];
}

/**
 * Bridge `bus` to the other instances; rejects when the database cannot be reached.
 * If the connection to PostgreSQL is lost later (the server restarted, a network blip),
 * the bridge reconnects with backoff and sends what was published meanwhile; events
 * other instances sent while it was away are missed (their browsers resync when their
 * event stream reconnects, see `onReconnect`).
 */
export async function bridge(bus: Bus, connectionString: string, options: BridgeOptions = {}): Promise<Bridge> {
  return new BusBridge(bus, connectionString, options).connect();
}

export class BusBridge implements Bridge {
  private readonly log: (message: string, error?: unknown) => void;
  private readonly encode: (event: Envelope) => Envelope;
  private readonly retry: { initialMs: number; maxMs: number };
  private readonly unhook: () => void;
  private closed = false;
  /** The working connection; undefined while (re)connecting. */
  private current: Connection | undefined;
  private reconnecting: ReturnType<typeof setTimeout> | undefined;
  private waitMs: number;
  /** Published here, not yet handed to PostgreSQL, oldest first. */
  private readonly queue: Envelope[] = [];
  /** Events dropped from a full queue since the connection was lost. */
  private dropped = 0;
  private pumping: Promise<void> | undefined;
  /** When the last NOTIFY was sent (performance.now()), and the wait for the next one. */
  private lastSent = Number.NEGATIVE_INFINITY;
  private lingering: ReturnType<typeof setTimeout> | undefined;
  /** What other instances sent, handled one after another in arrival order. */
  private receiving: Promise<void> = Promise.resolve();
  private parkedSinceSweep = 0;
  /** Whether another instance listens (see BridgeOptions.optional); assumed until known. */
  private peers = true;
  private peerCheck: ReturnType<typeof setInterval> | undefined;
  /** How every NOTIFY of this instance begins: its own come back to it and are skipped unread. */
  private readonly own: string;
  /** Answers to this instance's latest hello, and who waits for them. */
  private answers = 0;
  private onAnswer: (() => void) | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly connectionString: string,
    private readonly options: BridgeOptions = {},
  ) {
    this.log = options.log ?? ((message, error) => log.warn(message, error));
    this.encode = options.encode ?? ((event) => event);
    this.retry = options.retry ?? { initialMs: 250, maxMs: 5_000 };
    this.waitMs = this.retry.initialMs;
    this.own = `{"o":${JSON.stringify(bus.instanceId)}`;
    // Events published while the first connection opens wait in the queue.
    this.unhook = bus.onPublish((event) => this.enqueue(event));
  }

  /** Open the first connection; when that fails, the bridge is closed and the error thrown. */
  async connect(): Promise<this> {
    try {
      this.current = await this.open();
    } catch (error) {
      this.closed = true;
      this.unhook();
      throw error;
    }
    this.startPump();
    if (this.options.optional) {
      await this.hello(this.current);
      this.peerCheck = setInterval(() => void this.checkPeers(), PEER_CHECK_MS);
      this.peerCheck.unref?.();
    }
    return this;
  }

  /**
   * Say hello to the other instances (they start sending optional events), look for them,
   * and wait until each has answered (or HELLO_WAIT_MS passed): from then on they send
   * this instance every event.
   */
  private async hello(connection: Connection): Promise<void> {
    this.answers = 0;
    try {
      await connection.sender.query("SELECT pg_notify($1, $2)", [CHANNEL, `${this.own},"h":1,"n":${JSON.stringify(this.name)}}`]);
    } catch (error) {
      this.log("could not greet the other instances", error);
      return;
    }
    const others = await this.checkPeers();
    // Each bridge holds two connections (LISTEN and NOTIFY).
    const expected = Math.ceil(others / 2);
    if (expected === 0 || this.answers >= expected) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.onAnswer = undefined;
        resolve();
      };
      const timer = setTimeout(done, HELLO_WAIT_MS);
      timer.unref?.();
      this.onAnswer = () => {
        if (this.answers >= expected) done();
      };
    });
  }

  /** Count the connections of other instances' bridges (same name, not ours); sets `peers`. */
  private async checkPeers(): Promise<number> {
    const connection = this.current;
    if (!connection || this.closed) return 0;
    const own = connection.pids;
    try {
      const result = await connection.sender.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND NOT (pid = ANY($2::int[]))",
        [this.name, own],
      );
      const others = result.rows[0]?.n ?? 1;
      this.peers = others > 0;
      return others;
    } catch (error) {
      // Unknown: send everything, as with peers.
      this.peers = true;
      if (!isConnectionError(error)) this.log("could not look for other instances", error);
      return 0;
    }
  }

  /** Another instance (`to`) said hello: send it everything from now on, and tell it so. */
  private answerHello(to: string): void {
    this.peers = true;
    const connection = this.current;
    if (!connection) return;
    // Queued on the sender behind every event already handed to it, so it arrives after them.
    connection.sender.query("SELECT pg_notify($1, $2)", [CHANNEL, `${this.own},"h":2,"to":${JSON.stringify(to)}}`]).catch((error: unknown) => {
      if (!isConnectionError(error)) this.log("could not answer another instance's hello", error);
    });
  }

  get connected(): boolean {
    return this.current !== undefined && !this.closed;
  }

  private get name(): string {
    return this.options.name ?? "parley-bus";
  }

  async flush(): Promise<void> {
    // Handed over, or waiting for a reconnection that will send it.
    while (!this.closed && this.queue.length) {
      if (this.pumping) await this.pumping;
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async close(): Promise<void> {
    this.unhook();
    this.closed = true;
    clearInterval(this.peerCheck);
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.reconnecting) clearTimeout(this.reconnecting);
    this.reconnecting = undefined;
    await this.pumping;
    await this.receiving;
    const connection = this.current;
    this.current = undefined;
    if (connection) await this.end(connection);
  }

  private enqueue(event: Envelope): void {
    if (this.closed) return;
    if (!this.peers && this.options.optional?.(event)) return;
    this.queue.push(event);
    // Only while nothing is being sent: a batch in flight counts on the queue's head.
    if (this.queue.length > MAX_QUEUED && !this.pumping) {
      this.queue.shift();
      if (this.dropped++ === 0) this.log(`more than ${MAX_QUEUED} events wait for the database: dropping the oldest`);
    }
    this.startPump();
  }

  /** Send what is queued on the working connection, unless that is under way or waits for LINGER_MS. */
  private startPump(): void {
    const connection = this.current;
    if (!connection || this.pumping || this.lingering || !this.queue.length) return;
    const wait = this.lastSent + LINGER_MS - performance.now();
    if (wait > 0) {
      this.lingering = setTimeout(() => {
        this.lingering = undefined;
        this.startPump();
      }, wait);
      return;
    }
    this.pumping = this.pump(connection)
      .catch((error: unknown) => {
        if (isConnectionError(error)) {
          this.lost(connection, error);
        } else {
          // The database refused what was sent: drop it rather than retry it forever.
          this.queue.length = 0;
          this.log(`could not forward events to other instances`, error);
        }
      })
      .finally(() => {
        this.pumping = undefined;
        this.startPump();
      });
  }

  /**
   * Send the head of the queue, in order: as many events as fit in one NOTIFY (what came
   * meanwhile follows, LINGER_MS after it, see startPump), so a burst of streamed deltas
   * costs a few round trips, not one each. An event leaves the queue only once it was
   * sent: when the connection drops, the rest waits for the reconnection.
   */
  private async pump(connection: Connection): Promise<void> {
    if (this.queue.length && this.current === connection) await this.sendNext(connection.sender);
  }

  /** Send the head of the queue: as many events as fit in one NOTIFY, or one oversize event parked. */
  private async sendNext(sender: pg.Client): Promise<void> {
    this.lastSent = performance.now();
    const batch: string[] = [];
    let size = 0;
    for (const event of this.queue) {
      const json = this.serialize(event);
      const bytes = Buffer.byteLength(json);
      if (bytes > INLINE_LIMIT) {
        if (batch.length) break;
        const id = await this.park(sender, json);
        await sender.query("SELECT pg_notify($1, $2)", [CHANNEL, JSON.stringify({ o: this.bus.instanceId, r: id })]);
        this.queue.shift();
        return;
      }
      if (size + bytes + 1 > INLINE_LIMIT) break;
      batch.push(json);
      size += bytes + 1;
    }
    if (!batch.length) return;
    await sender.query("SELECT pg_notify($1, $2)", [CHANNEL, `{"o":${JSON.stringify(this.bus.instanceId)},"es":[${batch.join(",")}]}`]);
    this.queue.splice(0, batch.length);
  }

  private serialize(event: Envelope): string {
    const body = this.encode(event);
    return JSON.stringify(reaches(event.name) ? body : { ...body, internal: true });
  }

  /** Store an oversize event for the receivers to read by id; now and then sweep expired ones. */
  private async park(sender: pg.Client, json: string): Promise<string> {
    const parked = await sender.query<{ id: string }>('INSERT INTO "EventPayload" (payload) VALUES ($1) RETURNING id::text AS id', [json]);
    if (++this.parkedSinceSweep >= SWEEP_EVERY) {
      this.parkedSinceSweep = 0;
      await sender.query(`DELETE FROM "EventPayload" WHERE "createdAt" < now() - interval '${PARKED_TTL_MS / 1000} seconds'`);
    }
    return parked.rows[0]?.id ?? "";
  }

  /**
   * Deliver one NOTIFY from another instance. `reader` is the listening connection: its
   * queries (one at a time, in arrival order) never overlap the sender's.
   */
  private async receive(reader: pg.Client, raw: string): Promise<void> {
    const wire = Wire.parse(JSON.parse(raw));
    if (wire.o === this.bus.instanceId) return;
    // Another instance listens: it gets optional events from now on.
    this.peers = true;
    if ("h" in wire) {
      if (wire.h === 1) {
        // A hello for bridges of another name (another deployment on the same database) is not ours to answer.
        if (wire.n === undefined || wire.n === this.name) this.answerHello(wire.o);
      } else if (wire.to === this.bus.instanceId) {
        // Only answers to this instance's own hello: one to another new instance's does not
        // mean the answering instance has heard this one's yet.
        this.answers++;
        this.onAnswer?.();
      }
      return;
    }
    const bodies = "es" in wire ? wire.es : [await this.unpark(reader, wire.r)];
    for (const body of bodies) this.deliver(body);
  }

  private async unpark(reader: pg.Client, id: string): Promise<unknown> {
    const row = await reader.query<{ payload: string }>('SELECT payload FROM "EventPayload" WHERE id = $1', [id]);
    const payload = row.rows[0]?.payload;
    if (payload === undefined) throw new Error(`parked event ${id} is gone`);
    return JSON.parse(payload);
  }

  private deliver(body: unknown): void {
    const { internal, ...event } = Sent.parse(body);
    const def = lookup(event.name);
    if (!def) {
      // Server coordination this process has no part in (e.g. a seeding script).
      if (internal) return;
      throw new Error(`unknown event "${event.name}"`);
    }
    this.bus.deliver({ ...event, payload: def.schema.parse(event.payload) });
  }

  /** Connect both clients and LISTEN; a failed attempt closes what it opened. */
  private async open(): Promise<Connection> {
    const settings = { connectionString: this.connectionString, application_name: this.name };
    const connection: Connection = { listener: new pg.Client(settings), sender: new pg.Client(settings), pids: [] };
    this.watch(connection);
    try {
      await Promise.all([connection.listener.connect(), connection.sender.connect()]);
      const pid = (client: pg.Client) => client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid").then((r) => r.rows[0]?.pid ?? 0);
      connection.pids = await Promise.all([pid(connection.listener), pid(connection.sender)]);
      await connection.listener.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      await this.end(connection);
      throw error;
    }
    return connection;
  }

  /** Follow a connection's failures and what arrives on its listener. */
  private watch(connection: Connection): void {
    const { listener, sender } = connection;
    // Until `current` is this connection, its errors only fail the attempt.
    listener.on("error", (error) => this.lost(connection, error));
    sender.on("error", (error) => this.lost(connection, error));
    listener.on("end", () => this.lost(connection));
    sender.on("end", () => this.lost(connection));
    listener.on("notification", (message) => {
      // After close() began, nothing more is delivered (the sender may already be ending).
      if (this.closed || message.channel !== CHANNEL || message.payload === undefined) return;
      const raw = message.payload;
      // This instance's own NOTIFY: nothing to read.
      if (raw.startsWith(this.own)) return;
      this.receiving = this.receiving
        .then(() => this.receive(listener, raw))
        .catch((error: unknown) => this.log("dropped an event from another instance", error));
    });
  }

  /**
   * Close both clients. Ending a client whose connection already broke rejects with that
   * same break, which was reported when it happened: settled, not rethrown.
   */
  private end(connection: Connection): Promise<unknown> {
    return Promise.allSettled([connection.listener.end(), connection.sender.end()]);
  }

  /** The connection is gone: forget it, close what is left of it, and reconnect. */
  private lost(connection: Connection, error?: unknown): void {
    if (this.current !== connection) return;
    this.current = undefined;
    void this.end(connection);
    if (this.closed) return;
    this.log(`lost the database connection${error ? ` (${describeDbError(error)})` : ""}; reconnecting`);
    this.scheduleReconnect();
  }

  /** Try to connect again after the current wait, doubling it (up to the longest) after each failure. */
  private scheduleReconnect(): void {
    if (this.closed || this.reconnecting) return;
    this.reconnecting = setTimeout(() => {
      this.reconnecting = undefined;
      this.open().then(
        (connection) => this.reconnected(connection),
        () => {
          this.waitMs = Math.min(this.waitMs * 2, this.retry.maxMs);
          this.scheduleReconnect();
        },
      );
    }, this.waitMs);
    this.reconnecting.unref?.();
  }

  /** Back online: send what waited and tell the server it may have missed events. */
  private reconnected(connection: Connection): void {
    if (this.closed) {
      void this.end(connection);
      return;
    }
    this.waitMs = this.retry.initialMs;
    this.current = connection;
    this.log(`reconnected to the database`);
    if (this.dropped) this.log(`${this.dropped} event(s) were dropped while disconnected`);
    this.dropped = 0;
    this.startPump();
    if (this.options.optional) void this.hello(connection);
    this.options.onReconnect?.();
  }
}
