import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configServices } from "../server/assemble";
import { Bus } from "../server/bus/bus";
import { type Bridge, bridge, everyEvent } from "../server/bus/postgres";
import { loadConfig } from "../server/config";
import { createDb } from "../server/db/client";
import { type Services, withActor } from "../server/services";
import { Session } from "../server/session";
import type { Info } from "../server/session/info";
import type { PartOf, WithParts } from "../server/session/message";
import { wire } from "../server/session/wire";
import { trpcAnswer, trpcData, until } from "./app";
import type { Browser } from "./auth";
import { type FakeReply, type RecordedRequest, reply } from "./fake-openai";
import { scriptedOpenAI } from "./suite";
import { twoTeamsSuite } from "./two-teams";

/**
 * Issue 33, point 7: a failed model call waiting for its next attempt can be retried at
 * once ("Retry now", `session.retryNow`) or given up ("Stop retrying",
 * `session.stopRetrying`, the failed attempt's error becoming the turn's), through the
 * real tRPC Route Handler with real sign-in cookies; another team's member is refused and
 * changes nothing; a request made on a second instance reaches the wait on the first.
 */

const MODEL = { providerId: "compatible", modelId: "gpt-test" };
/** A wait far longer than any test: an attempt before it ends came from a member's request. */
const LONG_WAIT = { "retry-after": "300" };

describe("Retry now / Stop retrying (integration, through HTTP)", () => {
  const textOf = (request: RecordedRequest) => JSON.stringify(request.body.messages);
  const tagOf = (request: RecordedRequest) => /\[(r\d+)\]/.exec(textOf(request))?.[1];
  const isTitle = (request: RecordedRequest) => textOf(request).includes("Generate a short title");
  /** Scripted replies by the tag that starts a prompt ("[r1] …"). */
  const { fake, scripts } = scriptedOpenAI({ tag: tagOf, isTitle, fallback: reply.text("done") });
  const agentRequests = (tag: string) => fake.requests.filter((request) => tagOf(request) === tag && !isTitle(request));
  const teams = twoTeamsSuite("retry-control", () => ({ OPENAI_BASE_URL: `${fake.url}/v1`, PARLEY_MODEL: "compatible/gpt-test", PARLEY_RETRY_MAX_ATTEMPTS: "3" }));

  const call = (procedure: string, sessionId: string, who: Browser | "signed out") =>
    trpcAnswer(teams.app, procedure, { sessionId }, who === "signed out" ? new Headers() : who.headers);

  /** A session of Ann's whose prompt (tagged `tag`) gets `replies`, waiting for its retry once the first fails. */
  async function waitingSession(tag: string, replies: FakeReply[]): Promise<string> {
    scripts.set(tag, replies);
    const info = await trpcData<Info>(teams.app, "session.create", { projectId: teams.projectId }, teams.ann.headers);
    await trpcData(teams.app, "session.prompt", { sessionId: info.id, parts: [{ type: "text", text: `[${tag}] go` }], model: MODEL }, teams.ann.headers);
    await until("the retry wait", async () => ((await status(info.id)) === "retry" ? true : undefined));
    return info.id;
  }

  const status = async (sessionId: string) => (await trpcData<Info>(teams.app, "session.get", { sessionId }, teams.ann.headers)).status?.type;
  const lastReply = async (sessionId: string): Promise<WithParts> => {
    const messages = await Session.allMessages(teams.annCtx, sessionId);
    const last = messages.at(-1);
    if (!last || last.info.role !== "assistant") throw new Error("no reply");
    return last;
  };
  const retryParts = async (sessionId: string) => (await lastReply(sessionId)).parts.filter((part): part is PartOf<"retry"> => part.type === "retry");
  const idle = (sessionId: string) => until("the turn's end", async () => ((await status(sessionId)) === "idle" ? true : undefined));

  it("Retry now starts the next attempt at once; another team's member is refused and changes nothing", async () => {
    const sessionId = await waitingSession("r1", [reply.error(429, { headers: LONG_WAIT, message: "slow down" }), reply.text("Made it on the second attempt.")]);
    const [waiting] = await retryParts(sessionId);
    expect(waiting?.attempt).toBe(1);
    expect(waiting?.max).toBe(3);
    expect(waiting?.error.message).toContain("slow down");
    expect((waiting?.time.next ?? 0) - Date.now()).toBeGreaterThan(200_000);

    for (const procedure of ["session.retryNow", "session.stopRetrying"]) {
      const refused = await call(procedure, sessionId, teams.bob);
      expect(refused.status, procedure).toBe(404);
    }
    expect((await call("session.retryNow", sessionId, "signed out")).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await status(sessionId)).toBe("retry");
    expect(agentRequests("r1")).toHaveLength(1);

    const asked = Date.now();
    expect((await call("session.retryNow", sessionId, teams.ann)).status).toBe(200);
    await idle(sessionId);
    expect(Date.now() - asked).toBeLessThan(15_000);
    const done = await lastReply(sessionId);
    expect(done.info.role === "assistant" && done.info.error).toBeFalsy();
    expect(done.parts.some((part) => part.type === "text" && part.text === "Made it on the second attempt.")).toBe(true);
    const [retried] = await retryParts(sessionId);
    expect(retried?.time.next).toBeGreaterThanOrEqual(asked);
    expect(retried?.time.next).toBeLessThan(asked + 15_000);
    expect(agentRequests("r1")).toHaveLength(2);
    // Nothing waits any more: a late click is refused with a clear error.
    const late = await call("session.retryNow", sessionId, teams.ann);
    expect(late.status).toBe(409);
    expect(late.text).toContain("not waiting to retry");
  });

  it("Stop retrying ends the turn with the failed attempt's error, makes no other attempt, and says so on the retry part", async () => {
    const sessionId = await waitingSession("r2", [reply.error(503, { headers: LONG_WAIT, message: "the provider is down" })]);
    const asked = Date.now();
    expect((await call("session.stopRetrying", sessionId, teams.ann)).status).toBe(200);
    await idle(sessionId);
    expect(Date.now() - asked).toBeLessThan(15_000);
    const done = await lastReply(sessionId);
    const error = done.info.role === "assistant" ? done.info.error : undefined;
    expect(error?.name).toBe("APIError");
    expect(error && "statusCode" in error ? error.statusCode : undefined).toBe(503);
    expect(error?.message).toContain("the provider is down");
    const [stopped] = await retryParts(sessionId);
    expect(stopped?.time.stopped).toBeGreaterThanOrEqual(asked);
    expect(stopped?.time.next).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(agentRequests("r2")).toHaveLength(1);
    expect((await call("session.stopRetrying", sessionId, teams.ann)).status).toBe(409);
  });

  it("Retry now and Stop retrying together: the first settles the wait, the other changes nothing", async () => {
    const sessionId = await waitingSession("r3", [reply.error(500, { headers: LONG_WAIT }), reply.text("Went through.")]);
    const [now, stop] = await Promise.all([call("session.retryNow", sessionId, teams.ann), call("session.stopRetrying", sessionId, teams.ann)]);
    // The later one may find the wait already over (409) or settle nothing (200).
    expect([200, 409]).toContain(now.status);
    expect([200, 409]).toContain(stop.status);
    expect([now.status, stop.status]).toContain(200);
    await idle(sessionId);
    const done = await lastReply(sessionId);
    const error = done.info.role === "assistant" ? done.info.error : undefined;
    const [retry] = await retryParts(sessionId);
    // Whichever came first won, and only it: retried (a second attempt, no error) or stopped (no second attempt).
    if (error) {
      expect(error.name).toBe("APIError");
      expect(retry?.time.stopped).toBeDefined();
      expect(agentRequests("r3")).toHaveLength(1);
    } else {
      expect(retry?.time.stopped).toBeUndefined();
      expect(agentRequests("r3")).toHaveLength(2);
    }
  });

  describe("on two instances", () => {
    let second: Services;
    let link: Bridge;

    beforeAll(async () => {
      const cfg = loadConfig(process.env);
      second = await configServices(cfg, createDb(cfg.databaseUrl ?? ""), new Bus());
      link = await bridge(second.bus, cfg.databaseUrl ?? "", { encode: wire, optional: everyEvent });
    });

    afterAll(async () => {
      await link?.close();
      await second?.lock.close();
      await second?.db.$disconnect();
    });

    it("Stop retrying asked on the instance that does not run the turn ends the wait on the one that does", async () => {
      const sessionId = await waitingSession("r4", [reply.error(429, { headers: LONG_WAIT, message: "busy" })]);
      expect(second.runners.get(sessionId)).toBeUndefined();
      await Session.stopRetrying(withActor(second, teams.annCtx.actor), sessionId);
      await idle(sessionId);
      const done = await lastReply(sessionId);
      expect(done.info.role === "assistant" ? done.info.error?.name : undefined).toBe("APIError");
      expect(agentRequests("r4")).toHaveLength(1);
    });
  });
});

