import type { Db } from "../db/client";
import type { Message, Part } from "./message";
import * as Store from "./store";

/** What a turn's writer uses: the store's services, the streamed-writes batcher and the stream window. */
export interface WriterServices extends Store.StoreServices {
  streamedWrites: StreamedWrites;
  settings: { publicUrl?: string | undefined; streamWindowMs?: number | undefined };
}

/**
 * Writes the parts and messages of a running turn — the processor's, a member's subtask
 * (subtask.ts), a member's commands (shell.ts) — through the write path (store.ts). A
 * part is written with `write(part, durability, delta?)`: the durability says when it is
 * persisted, the delta how it is published. The durabilities (docs/ARCHITECTURE.md,
 * Durability, has the same table):
 *
 * | durability | persisted | published | used for | a crash loses |
 * |---|---|---|---|---|
 * | `now` | before the returned promise resolves: in the turn's next statement, which changes flushed while an earlier write of the turn is under way share (group commit) | at once, after what the turn holds | a part's end: text or reasoning ended, a tool's result or error, step-finish, patch, retry; what cleanup closes; a subtask's `task` part; a member's commands | nothing once the call has returned |
 * | `next` | with the turn's next write of any kind (a `now` write's statement, the batcher's, a message) — no timer of its own | as a streamed change (below) | a tool call's input as it streams (at the latest with the call's start, `batched`) | the input since the turn's last write: recovery aborts a call that never started, and a long input (a file being written) is not written whole again every FLUSH_MS |
 * | `batched` | by StreamedWrites within FLUSH_MS (200 ms), in one statement for every running turn of the process | with a delta as a streamed change; without one at once, after what the turn holds | text and reasoning deltas, a running tool's live progress (delta ""), a part just opened (step-start, empty text or reasoning, a pending tool), a tool call's start | at most MAX_LOSS_MS (250 ms) of streamed text; an opened part or a tool's start, whose end (`now`) would have written it — recovery closes what a crash left open |
 * | `message(info)` | before the call returns, in its own statement, in the turn's write order | after it is stored | the turn's assistant message (opened, closed, a compaction's failure) | nothing once the call has returned |
 * | `removePart(part)` | before the call returns (deleted, with its pending change dropped), in the turn's write order | after it is deleted | a failed attempt's parts before a retry | the removal: the part stays, closed by recovery |
 *
 * A streamed change (one with a delta, "" for a change that adds no text) is published at
 * once unless its part was published less than `streamWindowMs` ago: then it is held and
 * published when the window ends, as one event whose delta is all of theirs — so a fast
 * provider costs each client one event (and one socket write) per part per window, and
 * a provider slower than the window adds no delay at all. Anything else the turn
 * publishes first releases what is held, so clients see the turn's changes in order.
 * Writes of a turn are serialized, so the database always moves forward in publish order;
 * a `next` or `batched` write that fails is reported by the turn's next `flush`, once.
 */

/** How a part change is persisted: see the table above. */
export type Durability = "now" | "next" | "batched";

/** The most streamed text a crash may lose (ms): what Parley promises (README, Crash safety). */
export const MAX_LOSS_MS = 250;
/**
 * How often streamed changes are written (`batched`): early enough that the statement
 * itself (a few ms) has committed within MAX_LOSS_MS of the text arriving, as the
 * two-instance suite measures with a kill -9 (e2e/instances/recovery.spec.ts).
 */
export const FLUSH_MS = 200;
/** How long a streamed change of a part published less than this ago is held (ms). */
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

  /**
   * Write a part change with a durability (the table above): published at once, or as a
   * streamed change with `delta`; persisted before the returned promise resolves (`now`),
   * with the turn's next write (`next`), or by StreamedWrites within flushMs (`batched`).
   * Only `now` returns a promise: nothing is allocated per delta.
   */
  write(part: Part, durability: "now", delta?: string): Promise<void>;
  write(part: Part, durability: "next" | "batched", delta?: string): void;
  write(part: Part, durability: Durability, delta?: string): Promise<void> | undefined;
  write(part: Part, durability: Durability, delta?: string): Promise<void> | undefined {
    if (delta === undefined) {
      this.release();
      Store.publishPart(this.services, this.teamId, part);
    } else {
      this.publishStreamed(part, delta);
    }
    this.dirty.set(part.id, part);
    if (durability === "now") return this.flush();
    if (durability === "batched") this.services.streamedWrites.schedule(this);
    return undefined;
  }

  /** Store the turn's message (persisted, then published, in the turn's write order: see the table above). */
  async message(info: Message): Promise<void> {
    this.release();
    await this.enqueue(async () => {
      await Store.writeMessage(this.services, this.teamId, info);
      this.writes++;
    });
  }

  /** Delete a part (a failed attempt's), dropping its pending change: see the table above. */
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
            // A flush's parts are mostly ends of parts stored while they streamed.
            this.writes += await Store.persistParts(this.services.db, [...rows.values()], true);
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
  private publishStreamed(part: Part, delta: string): void {
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
