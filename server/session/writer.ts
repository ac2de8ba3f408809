import type { Services } from "../services";
import type { Message, Part } from "./message";
import * as Store from "./store";

/**
 * Writes a running assistant turn through the write path (store.ts). Every change is
 * published at once; text deltas are persisted in batches at most `flushMs` apart (a
 * crash loses at most that much streamed text), every other change is persisted before
 * the call returns. Writes are serialized, so the database always moves forward in
 * publish order.
 */
export const FLUSH_MS = 250;

export class TurnWriter {
  private readonly dirty = new Map<string, Part>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  private readonly flushMs: number;
  writes = 0;

  constructor(
    private readonly services: Services,
    private readonly teamId: string,
  ) {
    this.flushMs = services.settings.flushMs ?? FLUSH_MS;
  }

  /** Publish a part change; persist it now, or within flushMs when it is a streamed delta. */
  async part(part: Part, delta?: string): Promise<void> {
    Store.publishPart(this.services, this.teamId, part, delta);
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
      await Store.writeMessage(this.services, this.teamId, info);
      this.writes++;
    });
  }

  async removePart(part: Part): Promise<void> {
    this.dirty.delete(part.id);
    await this.enqueue(async () => {
      await Store.removePart(this.services, this.teamId, part);
      this.writes++;
    });
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
        this.writes += await Store.persistParts(this.services.db, parts);
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
