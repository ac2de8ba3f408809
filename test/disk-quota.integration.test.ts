import { existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Info } from "../server/session/info";
import type { PartOf, ToolPart, UserMessage, WithParts } from "../server/session/message";
import { projectAppEnv, trpcData } from "./app";
import { appSuite, openAISuite } from "./suite";
import type { Browser } from "./auth";
import { annInvitesBob } from "./two-teams";
import { type FakeReply, reply } from "./fake-openai";
import { settled } from "./session-harness";

/**
 * N14: a project's disk quota and the snapshot size check, as a member meets them through
 * HTTP — a fake OpenAI-compatible provider drives the real write tool and bash in the
 * sandbox; the quota is 2 MB (PARLEY_PROJECT_DISK_MB) and one snapshot stores at most
 * 1 MB of new files (PARLEY_SNAPSHOT_MAX_MB).
 */

const MODEL = { providerId: "compatible", modelId: "gpt-test" };
const MB = 1024 * 1024;

describe("N14: disk quota per project (integration, through HTTP)", () => {
  const fake = openAISuite();
  const app = appSuite("disk_quota", (dir) => {
    const config = path.join(dir, "parley.config.json");
    writeFileSync(config, JSON.stringify({ permission: { bash: "allow" } }));
    return projectAppEnv(dir, {
      PARLEY_CONFIG: config,
      PARLEY_SIGNUP: "invite",
      OPENAI_BASE_URL: `${fake.url}/v1`,
      PARLEY_PROJECT_DISK_MB: "2",
      PARLEY_SNAPSHOT_MAX_MB: "1",
    });
  });
  let bob: Browser;
  let projectId: string;

  beforeAll(async () => {
    ({ projectId, bob } = await annInvitesBob(app, "quota"));
  });

  const toolReply = (id: string, name: string, input: unknown): FakeReply => reply.toolCall({ id, name, pieces: [JSON.stringify(input)] });

  /** One turn of Bob's: the model makes one tool call, then answers; the turn's messages. */
  async function turn(sessionId: string, call: FakeReply): Promise<WithParts[]> {
    fake.reset();
    fake.enqueue(call, reply.text("done"));
    const user = await trpcData<UserMessage>(app, "session.prompt", { sessionId, parts: [{ type: "text", text: "go" }], model: MODEL }, bob.headers);
    await settled(app.rt.services, sessionId, 30_000);
    const page = await trpcData<{ messages: WithParts[] }>(app, "message.page", { sessionId, limit: 200 }, bob.headers);
    return page.messages.filter((m) => m.info.id > user.id);
  }

  const tools = (messages: WithParts[]): ToolPart[] => messages.flatMap((m) => m.parts.filter((p): p is ToolPart => p.type === "tool"));
  const finishes = (messages: WithParts[]) => messages.flatMap((m) => m.parts.filter((p): p is PartOf<"step-finish"> => p.type === "step-finish"));

  it("N14: a member's write past the project's quota is refused with the quota's message; a bash command that goes past it fails saying so; a snapshot too large, or of a project over its quota, is skipped with a note", async () => {
    const session = await trpcData<Info>(app, "session.create", { projectId, title: "quota" }, bob.headers);
    const sessionId = session.id;
    // The quota holds for the session's own workspace, where its tools write.
    const workspace = session.directory;

    // 1.5 MB: within the quota, but more than one snapshot stores.
    const first = await turn(sessionId, toolReply("w1", "write", { filePath: "data/one.txt", content: "a".repeat(1.5 * MB) }));
    expect(tools(first)[0]?.state.status).toBe("completed");
    expect(statSync(path.join(workspace, "data", "one.txt")).size).toBe(1.5 * MB);
    expect(finishes(first)[0]?.snapshotSkipped).toMatch(/more than one snapshot stores \(1 MB, limits\.snapshotMb\)/);

    // Another 1 MB would take the project past its 2 MB.
    const second = await turn(sessionId, toolReply("w2", "write", { filePath: "data/two.txt", content: "b".repeat(MB) }));
    const refused = tools(second)[0];
    expect(refused?.state.status).toBe("error");
    expect(refused?.state.status === "error" && refused.state.error).toMatch(/Cannot write data\/two\.txt: the project would be over its disk quota \(.* MB used of 2\.0 MB, limits\.projectDiskMb\)/);
    expect(existsSync(path.join(workspace, "data", "two.txt"))).toBe(false);

    // A command's writes are measured after it ran.
    const third = await turn(sessionId, toolReply("b1", "bash", { command: "head -c 3145728 /dev/zero > data/three.bin && echo made", description: "make a file" }));
    const failed = tools(third)[0];
    expect(failed?.state.status).toBe("error");
    expect(failed?.state.status === "error" && failed.state.error).toMatch(/The project is now over its disk quota \(.* MB used of 2\.0 MB, limits\.projectDiskMb\)[\s\S]*made/);
    expect(finishes(third)[0]?.snapshotSkipped).toMatch(/^not snapshotted: /);

    // Over its quota, the project is not snapshotted at all (a step's start snapshot is taken before its first tool).
    const fourth = await turn(sessionId, toolReply("l1", "list", { path: "data" }));
    expect(tools(fourth)[0]?.state.status).toBe("completed");
    expect(finishes(fourth)[0]?.snapshotSkipped).toMatch(/not snapshotted: the project is over its disk quota \(.* MB used of 2 MB, limits\.projectDiskMb\)/);
    expect(finishes(fourth)[0]?.snapshot).toBeUndefined();
  });
});
