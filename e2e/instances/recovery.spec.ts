import { INTERRUPTED_MESSAGE } from "../../server/session/recovery";
import { expect, test } from "./fixtures";
import { callTool, counted, instanceOf, reply, tokens } from "./support/provider";
import { range, settled, stored, textOf } from "./support/state";

/**
 * A dead instance's sessions: when A is killed outright, the run locks it held go with
 * its connection, and B's periodic recovery closes what A left open.
 */

const RECOVERY_BOUND_MS = 15_000;
const LOSS_BOUND_MS = 250;

test("kill -9 of A mid-stream: B recovers its sessions within 15 s, losing at most 250 ms of text, and answers the next prompt", async ({ cluster }) => {
  cluster.writeProjectFile(".env", "TOKEN=kept-private\n");
  const streaming = await cluster.session("a", "Killed mid-stream");
  const asking = await cluster.session("a", "Killed while asking");
  cluster.model.script(streaming.tag, counted(3_000, 10));
  // read .env asks first (the default rules): a running tool and a pending question.
  cluster.model.script(asking.tag, callTool("read", { filePath: ".env" }, "Reading it. "));
  expect((await cluster.api("a").prompt(streaming.id, `stream ${streaming.tag}`)).status).toBe(200);
  expect((await cluster.api("a").prompt(asking.id, `read .env ${asking.tag}`)).status).toBe(200);

  await expect.poll(() => cluster.db.permissionRequest.count({ where: { sessionId: asking.id, status: "pending" } })).toBe(1);
  await expect.poll(async () => tokens(textOf((await stored(cluster.db, streaming.id)).messages.at(-1))).length, { timeout: 20_000 }).toBeGreaterThan(150);
  const model = cluster.model.requests(streaming.tag)[0];
  expect(model && instanceOf(model)).toBe("a");

  const killedAt = Date.now();
  await cluster.a.kill9();
  await expect
    .poll(async () => (await cluster.db.session.findMany({ where: { id: { in: [streaming.id, asking.id] }, status: "idle" } })).length, {
      timeout: RECOVERY_BOUND_MS,
      intervals: [100],
    })
    .toBe(2);
  expect(Date.now() - killedAt).toBeLessThanOrEqual(RECOVERY_BOUND_MS);

  // The text stored is what the model sent, up to at most 250 ms before the kill.
  const interrupted = await stored(cluster.db, streaming.id);
  const reply1 = interrupted.messages.at(-1);
  const kept = tokens(textOf(reply1));
  expect(kept).toEqual(range(kept.length));
  const firstLost = model?.sent[kept.length];
  const lostMs = firstLost && firstLost.time < killedAt ? killedAt - firstLost.time : 0;
  console.log(`[instances] recovered ${Date.now() - killedAt} ms after the kill; text lost: ${lostMs} ms (${kept.length} of ${model?.sent.length} deltas kept)`);
  expect(lostMs).toBeLessThanOrEqual(LOSS_BOUND_MS);
  expect(reply1?.info.role === "assistant" && reply1.info.error).toEqual({ name: "AbortedError", message: INTERRUPTED_MESSAGE });

  // The tool A was running is aborted, its question failed.
  const asked = (await stored(cluster.db, asking.id)).messages.at(-1);
  const tool = asked?.parts.find((p) => p.type === "tool");
  expect(tool?.type === "tool" && tool.state).toMatchObject({ status: "error", error: "Tool execution aborted" });
  const question = await cluster.db.permissionRequest.findFirstOrThrow({ where: { sessionId: asking.id } });
  expect(question.status).toBe("reject");
  expect(question.feedback).toContain("restarted");

  // B answers the next prompt of the recovered session.
  cluster.model.script(streaming.tag, reply.text("Back on B."));
  expect((await cluster.api("b").prompt(streaming.id, `again ${streaming.tag}`)).status).toBe(200);
  await expect.poll(async () => settled(await stored(cluster.db, streaming.id))).toBe(true);
  expect(textOf((await stored(cluster.db, streaming.id)).messages.at(-1))).toBe("Back on B.");
  const again = cluster.model.requests(streaming.tag)[1];
  expect(again && instanceOf(again)).toBe("b");
});
