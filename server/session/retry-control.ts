import { z } from "zod";
import { ParleyError } from "../errors";
import * as Id from "../id";
import type { Context } from "../services";
import { sessionRow } from "./access";
import { type RetryAction, RetryRequested } from "./runner";
import * as Status from "./status";

/**
 * "Retry now" and "Stop retrying" on a failed model call that waits for its next attempt
 * (server/session/processor.ts). The wait lives in the process that runs the turn: the
 * request is published on the bus, so it reaches that process on whichever instance it
 * is (as an abort does), where the first request settles the wait and later ones, or one
 * that comes after the timer, change nothing (Runners.waitToRetry).
 */

export const RetryControlInput = z.object({ sessionId: Id.schema("session") });

async function control(ctx: Context, sessionId: string, action: RetryAction): Promise<void> {
  const row = await sessionRow(ctx, sessionId);
  if (Status.fromRow(row).type !== "retry") {
    throw new ParleyError("CONFLICT", "This session is not waiting to retry a failed model call.", { details: { sessionId } });
  }
  ctx.bus.publish(RetryRequested, { sessionId, action }, { teamId: row.teamId, sessionId });
}

/** Start the next attempt of the session's failed model call at once. */
export function retryNow(ctx: Context, sessionId: string): Promise<void> {
  return control(ctx, sessionId, "now");
}

/** Make no more attempts: the turn ends with the failed attempt's error. */
export function stopRetrying(ctx: Context, sessionId: string): Promise<void> {
  return control(ctx, sessionId, "stop");
}
