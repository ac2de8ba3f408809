/**
 * A Parley server process for the crash test (server/session/crash.integration.test.ts):
 * the real runtime pieces (database client, bus, run lock, runners, permission service,
 * built-in tools, the offline model through the provider code) against the database in
 * DATABASE_URL, with config rules that allow bash. It starts two prompts and prints
 * "READY" once the database shows them mid-flight, then waits to be killed:
 *
 *   - <toolSession>: "Run `echo started && echo $$ > bash.pid && exec sleep 30` and read
 *     .env" — streamed text, then a bash call that runs (it prints a line, shown live, and
 *     writes its process group id to bash.pid in the project directory, so the test can
 *     end it) and a read of .env waiting for an answer;
 *   - <streamSession>: "write a long answer and stream slowly" — text still streaming;
 *   - <taskSession>: a task call whose subagent, in a child session, is still streaming.
 *
 *   node --import tsx test/crash-server.ts <teamId> <userId> <toolSession> <streamSession> <taskSession>
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { assemble, configModels, configSettings } from "../server/assemble";
import { Bus } from "../server/bus/bus";
import { loadConfig } from "../server/config";
import { createDb } from "../server/db/client";
import { fromConfig } from "../server/permission/evaluate";
import { OFFLINE_MODEL_ID, OFFLINE_PROVIDER_ID } from "../server/provider/offline/constants";
import { Sandbox } from "../server/sandbox/sandbox";
import { withActor } from "../server/services";
import { prompt } from "../server/session/prompt";
import { partFromRow } from "../server/session/rows";

const TOOL_PROMPT = "Run `echo started && echo $$ > bash.pid && exec sleep 30` and read .env";
const STREAM_PROMPT = "write a long answer and stream slowly";
const TASK_PROMPT = "use a subagent to `write a long answer and stream slowly`";

async function main(): Promise<void> {
  const [teamId, userId, toolSession, streamSession, taskSession] = process.argv.slice(2);
  if (!teamId || !userId || !toolSession || !streamSession || !taskSession) {
    throw new Error("usage: crash-server.ts <teamId> <userId> <toolSession> <streamSession> <taskSession>");
  }
  const cfg = loadConfig(process.env);
  if (!cfg.databaseUrl) throw new Error("DATABASE_URL is not set");
  const db = createDb(cfg.databaseUrl, { max: 4 });
  const services = assemble({
    db,
    bus: new Bus(),
    databaseUrl: cfg.databaseUrl,
    sandbox: await Sandbox.create(cfg.sandbox),
    models: { ...configModels(cfg), default: () => ({ providerId: OFFLINE_PROVIDER_ID, modelId: OFFLINE_MODEL_ID }) },
    settings: { ...configSettings(cfg), compaction: { auto: false, prune: false } },
    configRules: fromConfig({ bash: "allow" }),
  });
  const ctx = withActor(services, { teamId, userId });
  const model = { providerId: OFFLINE_PROVIDER_ID, modelId: OFFLINE_MODEL_ID };
  await prompt(ctx, { sessionId: toolSession, parts: [{ type: "text", text: TOOL_PROMPT }], model });
  await prompt(ctx, { sessionId: streamSession, parts: [{ type: "text", text: STREAM_PROMPT }], model });
  await prompt(ctx, { sessionId: taskSession, parts: [{ type: "text", text: TASK_PROMPT }], model });

  const { directory } = await db.session.findUniqueOrThrow({ where: { id: toolSession }, select: { directory: true } });
  const ready = async (): Promise<boolean> => {
    const tools = (await db.part.findMany({ where: { sessionId: toolSession, type: "tool" } })).map(partFromRow);
    // Running, with its live output persisted.
    const bashRunning = tools.some(
      (p) => p.type === "tool" && p.tool === "bash" && p.state.status === "running" && p.state.metadata?.output === "started\n",
    );
    const asking = await db.permissionRequest.count({ where: { sessionId: toolSession, status: "pending" } });
    const texts = (await db.part.findMany({ where: { sessionId: { in: [toolSession, streamSession] }, type: "text" } })).map(partFromRow);
    const written = (id: string) => texts.some((p) => p.sessionId === id && p.type === "text" && p.text.trim() !== "");
    const streamingIn = (sessionId: string) => texts.some((p) => p.sessionId === sessionId && p.type === "text" && p.time?.end === undefined && p.text.length > 40);
    const child = await db.session.findFirst({ where: { parentId: taskSession }, select: { id: true } });
    const childStreaming = child !== null && (await db.part.findMany({ where: { sessionId: child.id, type: "text" } })).map(partFromRow).some((p) => p.type === "text" && p.time?.end === undefined && p.text.length > 40);
    return bashRunning && asking > 0 && written(toolSession) && streamingIn(streamSession) && childStreaming && existsSync(path.join(directory, "bash.pid"));
  };
  while (!(await ready())) await new Promise((resolve) => setTimeout(resolve, 25));
  process.stdout.write("READY\n");
  // Stay up until killed; the runners keep going meanwhile.
  setInterval(() => undefined, 60_000);
}

main().catch((error: unknown) => {
  console.error("[crash-server]", error);
  process.exit(1);
});
