import type { Bus } from "../bus/bus";
import type { Db } from "../db/client";
import * as Event from "./events";
import type { Message, Part } from "./message";
import { messageData, partData } from "./rows";

/**
 * Writes a running assistant turn. Every change is published at once; text deltas are
 * persisted in batches at most `flushMs` apart (SPEC §4/§6: a crash loses at most that
 * much streamed text), every other change is persisted before the call returns. Writes
 * are serialized, so the database always moves forward in publish order.
 */
export const FLUSH_MS = 250;

export class TurnWriter {
  private readonly dirty = new Map<string, Part>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  writes = 0;

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly teamId: string,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** Publish a part change; persist it now, or within flushMs when it is a streamed delta. */
  async part(part: Part, delta?: string): Promise<void> {
    this.bus.publish(
      Event.PartUpdated,
      delta === undefined ? { part } : { part, delta },
      { teamId: this.teamId, sessionId: part.sessionId },
      // Streamed deltas are built by the processor from typed parts; see Bus.publish.
      { trusted: delta !== undefined },
    );
    this.dirty.set(part.id, part);
    if (delta !== undefined) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        void this.flush().catch((error: unknown) => {
          this.failure ??= error;
        });
      }, this.flushMs);
      return;
    }
    await this.flush();
  }

  async message(info: Message): Promise<void> {
    await this.enqueue(async () => {
      await this.db.message.upsert({
        where: { id: info.id },
        create: { id: info.id, sessionId: info.sessionId, role: info.role, data: messageData(info), timeCreated: new Date(info.time.created) },
        update: { data: messageData(info) },
      });
      this.writes++;
    });
    this.bus.publish(Event.MessageUpdated, { info }, { teamId: this.teamId, sessionId: info.sessionId });
  }

  async removePart(part: Part): Promise<void> {
    this.dirty.delete(part.id);
    await this.enqueue(async () => {
      await this.db.part.deleteMany({ where: { id: part.id } });
      this.writes++;
    });
    this.bus.publish(
      Event.PartRemoved,
      { sessionId: part.sessionId, messageId: part.messageId, partId: part.id },
      { teamId: this.teamId, sessionId: part.sessionId },
    );
  }

  /** Persist every pending part change. Rejects with the first write failure. */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const parts = [...this.dirty.values()];
    this.dirty.clear();
    if (parts.length) {
      await this.enqueue(async () => {
        for (const part of parts) {
          await this.db.part.upsert({
            where: { id: part.id },
            create: { id: part.id, messageId: part.messageId, sessionId: part.sessionId, type: part.type, data: partData(part) },
            update: { type: part.type, data: partData(part) },
          });
          this.writes++;
        }
      });
    } else {
      await this.chain;
    }
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      throw failure;
    }
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.chain.then(work);
    // Keep the chain alive after a failure. The failure itself goes to the caller of
    // `next` only (a background flush records it for the next flush() itself): recording
    // it here too would throw an already-reported error again at the next flush, failing
    // the turn's cleanup.
    this.chain = Promise.allSettled([next]).then(() => undefined);
    return next;
  }
}
