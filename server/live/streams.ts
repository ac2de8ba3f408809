import { type Bus, type Scope, is } from "../bus/bus";
import { type TrustedProxies, clientAddress } from "../auth/client-address";
import { ParleyError } from "../errors";
import type { Part } from "../session/message";
import { Synced } from "../session/runner";
import type { StreamLimits } from "./limits";

/**
 * The live streams this process has open, as far as they cost the server: how many each
 * user, client address, share link and share link from one address holds (each capped: a stream is memory and work on
 * every event for as long as it is open), and where a runner's answer to one stream's
 * sync request goes. The caps count this instance's streams.
 */

/** Who a stream is for: its request's headers (for the client's address) and the user or share link. */
export interface StreamOwner {
  headers: Headers;
  userId?: string;
  shareId?: string;
}

type SyncReceiver = (parts: Part[], scope: Scope) => void;

export class LiveStreams {
  private readonly open = new Map<string, number>();
  private readonly receivers = new Map<string, SyncReceiver>();

  constructor(
    bus: Bus,
    private readonly limits: StreamLimits,
    private readonly proxies: TrustedProxies,
  ) {
    bus.subscribeAll((event) => {
      if (is(event, Synced)) this.receivers.get(event.payload.connection)?.(event.payload.parts, event.scope);
    });
  }

  /**
   * Count in a stream about to open; TOO_MANY when its user, address or share link holds
   * as many as allowed already. Returns the release, to call once the stream ends.
   */
  admit(owner: StreamOwner): () => void {
    const keys: [key: string, limit: number, over: string][] = [];
    if (owner.userId !== undefined) keys.push([`user:${owner.userId}`, this.limits.perUser, "for your account"]);
    if (owner.shareId !== undefined) keys.push([`share:${owner.shareId}`, this.limits.perShare, "for this share link"]);
    const address = clientAddress(owner.headers, this.proxies);
    if (address !== null) {
      keys.push([`address:${address}`, this.limits.perAddress, "from your address"]);
      if (owner.shareId !== undefined) keys.push([`share:${owner.shareId}@${address}`, this.limits.perAddressPerShare, "for this share link from your address"]);
    }
    for (const [key, limit, over] of keys) {
      if ((this.open.get(key) ?? 0) >= limit) {
        throw new ParleyError("TOO_MANY", `Too many live streams are open ${over} (at most ${limit}): close some tabs and try again.`, { details: { limit } });
      }
    }
    for (const [key] of keys) this.open.set(key, (this.open.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const [key] of keys) {
        const left = (this.open.get(key) ?? 1) - 1;
        if (left > 0) this.open.set(key, left);
        else this.open.delete(key);
      }
    };
  }

  /** Streams open for a user, an address, a share link or a share link from one address (`user:<id>`, `address:<ip>`, `share:<id>`, `share:<id>@<ip>`). */
  count(key: string): number {
    return this.open.get(key) ?? 0;
  }

  /** Hand the runners' answers to the sync request of stream `connection` to `receive`, until the returned stop. */
  onSync(connection: string, receive: SyncReceiver): () => void {
    this.receivers.set(connection, receive);
    return () => {
      this.receivers.delete(connection);
    };
  }
}
