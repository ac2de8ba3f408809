import type { Db } from "../db/client";
import type { Message, Part } from "./message";
import * as Store from "./store";

/** What a turn's writer uses: the store's services, the streamed-writes batcher and the stream window. */
export interface WriterServices extends Store.StoreServices {
  streamedWrites: StreamedWrites;
  settings: { publicUrl?: string | undefined; streamWindowMs?: number | undefined };
}

/**
 * Writes a running assistant turn through the write path (store.ts).
 *
 * Publishing: a change without a delta is published at once. Streamed changes of a part
 * (text deltas, a tool's input as it streams) are published at once too, unless the
 * part was published less than `streamWindowMs` ago: then they are held and published
 * together when the window ends, as one event whose delta is all of theirs — so a fast
 * provider costs each client one event (and one socket write) per part per window, and
 * a provider slower than the window adds no delay at all. Anything else the turn
 * publishes first releases what is held, so clients see the turn's changes in order.
 *
 * Persisting: every change but a streamed one, a part just opened or a tool call's start
 * (see `soon`) is persisted before the call returns.
 * Streamed changes are persisted by the services' StreamedWrites at most `flushMs` later,
 * together with those of every other running turn in one statement (a tool call's input
 * as it streams only with the turn's next write: see `input`). Writes of a turn are
 * serialized, so the database always moves forward in publish order.
 */
/** The most streamed text a crash may lose (ms): what Parley promises (README, Crash safety). */
export const MAX_LOSS_MS = 250;
/**
 * How often streamed changes are written: early enough that the statement itself (a few
 * ms) has committed within MAX_LOSS_MS of the text arriving, as the two-instance suite
 * measures with a kill -9 (e2e/instances/recovery.spec.ts).
 */
export const FLUSH_MS = 200;
export const STREAM_WINDOW_MS = 16;

export class TurnWriter {
  private readonly dirty = new Map<string, Part>();
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** Streamed changes held until their part's window ends: the latest part and the deltas since the last publish. */
  private readonly held = new Map<string, { part: Part; delta: string }>();
  /** When each streamed part was last published (performance.now()). */
  private readonly published = new Map<string, number>();
  private releaseTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly windowMs: number;
  /** The part statement queued last, not yet started, while nothing else was queued after it: a flush joins it. */
  private group: { rows: Map<string, Part>; done: Promise<void> } | undefined;
  writes = 0;

  constructor(
    private readonly services: WriterServices,
    private readonly teamId: string,
  ) {
    this.windowMs = services.settings.streamWindowMs ?? STREAM_WINDOW_MS;
  }

  /** Publish a part change (a streamed one may be held for its window); persist it now, or within flushMs when it is streamed. */
  async part(part: Part, delta?: string): Promise<void> {
    if (delta === undefined) {
      this.release();
      Store.publishPart(this.services, this.teamId, part);
      this.dirty.set(part.id, part);
      return this.flush();
    }
    this.stream(part, delta);
    this.dirty.set(part.id, part);
    this.services.streamedWrites.schedule(this);
  }

  /**
   * A tool call's input as it streams: published like any streamed change (held for its
   * part's window), persisted with the turn's next write (at the latest the call's start,
   * itself persisted within flushMs: see `soon`) and not on a timer of its own. A call's
   * input is worth nothing after a crash (recovery aborts a call that never started), and
   * a long one (a file being written) would otherwise be written whole again every flushMs.
   */
  input(part: Part): void {
    this.stream(part, "");
    this.dirty.set(part.id, part);
  }

  /**
   * Publish a change at once and persist it with the turn's next write (at the latest
   * within flushMs), for changes not worth a statement of their own: a part just opened
   * (an empty text or reasoning part, a step's start, a tool whose input is about to
   * stream), whose content is written anyway, and a tool call's start, whose result is
   * (a crash before either leaves a part that recovery closes).
   */
  soon(part: Part): void {
    this.release();
    Store.publishPart(this.services, this.teamId, part);
    this.dirty.set(part.id, part);
    this.services.streamedWrites.schedule(this);
  }

  async message(info: Message): Promise<void> {
    this.release();
    await this.enqueue(async () => {
      await Store.writeMessage(this.services, this.teamId, info);
      this.writes++;
    });
  }

  async removePart(part: Part): Promise<void> {
    this.release();
    this.dirty.delete(part.id);
    this.published.delete(part.id);
    await this.enqueue(async () => {
      await Store.removePart(this.services, this.teamId, part);
      this.writes++;
    });
  }

  /**
   * Publish what is held and persist every pending part change. Rejects with the first write
   * failure.
   *
   * Flushes in a row share a statement (group commit): changes flushed while an earlier
   * write of the turn is still under way join the statement queued after it, unless
   * another write was queued since — so ten tool results that come at once cost a
   * statement or two, not ten, and writes still reach the database in the order they were
   * made.
   */
  async flush(): Promise<void> {
    this.release();
    const parts = this.take();
    if (parts.length) {
      let group = this.group;
      if (!group) {
        const rows = new Map<string, Part>();
        group = {
          rows,
          done: this.enqueue(async () => {
            if (this.group?.rows === rows) this.group = undefined;
            this.writes += await Store.persistParts(this.services.db, [...rows.values()]);
          }, true),
        };
        this.group = group;
      }
      for (const part of parts) group.rows.set(part.id, part);
      await group.done;
    } else {
      await this.chain;
    }
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      throw failure;
    }
  }

  /** The pending part changes, handed over to be persisted (by flush or by StreamedWrites). */
  take(): Part[] {
    const parts = [...this.dirty.values()];
    this.dirty.clear();
    return parts;
  }

  /** Resolves when the writes queued so far have settled. */
  settled(): Promise<void> {
    return this.chain;
  }

  /**
   * Count in a write made for this turn elsewhere (StreamedWrites' shared statement):
   * later writes wait for it; its failure is reported by the next flush, once.
   */
  after(write: Promise<number>): void {
    this.group = undefined;
    this.chain = this.chain.then(() =>
      write.then(
        (count) => {
          this.writes += count;
        },
        (error: unknown) => {
          this.failure ??= error;
        },
      ),
    );
  }

  /** Publish a streamed change now, or hold it until its part's window ends. */
  private stream(part: Part, delta: string): void {
    const held = this.held.get(part.id);
    if (held) {
      held.part = part;
      held.delta += delta;
      return;
    }
    const now = performance.now();
    const last = this.published.get(part.id);
    if (this.windowMs <= 0 || last === undefined || now - last >= this.windowMs) {
      this.published.set(part.id, now);
      Store.publishPart(this.services, this.teamId, part, delta);
      return;
    }
    this.held.set(part.id, { part, delta });
    this.releaseTimer ??= setTimeout(() => this.release(), last + this.windowMs - now);
  }

  /** Publish every held change. */
  private release(): void {
    if (this.releaseTimer) {
      clearTimeout(this.releaseTimer);
      this.releaseTimer = undefined;
    }
    if (!this.held.size) return;
    const now = performance.now();
    for (const [id, { part, delta }] of this.held) {
      this.published.set(id, now);
      Store.publishPart(this.services, this.teamId, part, delta);
    }
    this.held.clear();
  }

  /** Queue a write after the turn's others; anything but a flush's own statement closes the open group. */
  private enqueue(work: () => Promise<void>, group = false): Promise<void> {
    if (!group) this.group = undefined;
    const next = this.chain.then(work);
    // Keep the chain alive after a failure. The failure itself goes to the caller of
    // `next` only (a background flush records it for the next flush() itself): recording
    // it here too would throw an already-reported error again at the next flush, failing
    // the turn's cleanup.
    this.chain = Promise.allSettled([next]).then(() => undefined);
    return next;
  }
}

/**
 * The streamed part changes of every running turn of this process, persisted together:
 * every `flushMs`, one multi-row statement for all turns with changes (instead of one per
 * turn), once each turn's earlier writes are done. When that statement fails (say one
 * turn's message was deleted meanwhile), each turn's changes are written on their own,
 * so one turn's failure is only that turn's.
 */
export class StreamedWrites {
  private readonly waiting = new Set<TurnWriter>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly db: Db,
    readonly flushMs: number = FLUSH_MS,
  ) {}

  schedule(writer: TurnWriter): void {
    this.waiting.add(writer);
    this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  private flush(): void {
    this.timer = undefined;
    const batch = [...this.waiting].map((writer) => ({ writer, parts: writer.take() })).filter((b) => b.parts.length);
    this.waiting.clear();
    if (!batch.length) return;
    const together = Promise.all(batch.map((b) => b.writer.settled())).then(() =>
      Store.persistParts(
        this.db,
        batch.flatMap((b) => b.parts),
      ),
    );
    for (const { writer, parts } of batch) {
      writer.after(together.then(() => parts.length, () => Store.persistParts(this.db, parts)));
    }
  }
}
