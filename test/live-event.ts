import { type LiveEvent, isLiveEvent } from "../components/events/use-event-source";

/** A live event as the stream would send it, for tests that feed the browser's code (its shape checked as the stream's reader checks it). */
export function liveEvent(fields: { id: string; name: string; payload: unknown; scope: { teamId: string; sessionId?: string }; time?: number }): LiveEvent {
  const event: unknown = { time: 0, ...fields };
  if (!isLiveEvent(event)) throw new Error(`not a live event: ${JSON.stringify(fields)}`);
  return event;
}
