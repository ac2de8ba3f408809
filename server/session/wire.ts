import type { Envelope } from "../bus/bus";
import { PartUpdated } from "./events";

/**
 * How an event travels to browsers and other instances. A streamed text delta is sent
 * compactly: the part without its text, the delta, and the offset where the delta
 * starts, so a long answer does not resend its whole text on every token. Receivers
 * append at the offset, skip what they already have, and wait for a full part (sent on
 * every non-delta change and on reconnect, see runner.sync) when they have a gap.
 */
export function wire(event: Envelope): Envelope {
  if (event.name !== PartUpdated.name) return event;
  const payload = PartUpdated.schema.parse(event.payload);
  const { part, delta } = payload;
  if (delta === undefined || payload.offset !== undefined) return event;
  if (part.type !== "text" && part.type !== "reasoning") return event;
  return { ...event, payload: { part: { ...part, text: "" }, delta, offset: part.text.length - delta.length } };
}
