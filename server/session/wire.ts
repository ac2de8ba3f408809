import type { z } from "zod";
import type { Envelope } from "../bus/bus";
import { PartUpdated } from "./events";

/**
 * How an event travels to browsers and other instances. A streamed text delta is sent
 * compactly: the part without its text, the delta, and the offset where the delta
 * starts, so a long answer does not resend its whole text on every token. Receivers
 * append at the offset, skip what they already have, and wait for a full part (sent on
 * every non-delta change and on reconnect, see runner.sync) when they have a gap.
 */
const encoded = new WeakMap<Envelope, Envelope>();

export function wire(event: Envelope): Envelope {
  if (event.name !== PartUpdated.name) return event;
  const cached = encoded.get(event);
  if (cached) return cached;
  // Events on the bus were validated when published or received; only the shape matters here.
  const payload = event.payload as z.output<typeof PartUpdated.schema>;
  const { part, delta } = payload;
  let out = event;
  if (delta !== undefined && payload.offset === undefined && (part.type === "text" || part.type === "reasoning")) {
    out = { ...event, payload: { part: { ...part, text: "" }, delta, offset: part.text.length - delta.length } };
  }
  encoded.set(event, out);
  return out;
}
