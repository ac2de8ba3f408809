import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTeam } from "../../test/db";
import { parleyError } from "../../test/fixtures";
import { testServices } from "../../test/runtime";
import { closeLocks, finish, scriptedServices } from "../../test/session-harness";
import { Bus } from "../bus/bus";
import type { Services } from "../services";
import { MAX_LISTED, MAX_MENTION_BYTES, rank } from "./project-files";
import { MENTIONS_DEADLINE_MS } from "./prompt";
import { Session } from ".";

/**
 * `@` mentions: the listing of a session's project files (authorized like every session
 * read, confined to the project, no symlink followed) and the content a mention brings.
 */

const GREET = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n';

let base: string;
let project: string;
let outside: string;

beforeAll(() => {
  base = mkdtempSync(path.join(os.tmpdir(), "parley-mentions-"));
  project = path.join(base, "project");
  outside = path.join(base, "outside");
  const files: Record<string, string> = {
    "README.md": "# Sample\n",
    "src/greet.ts": GREET,
    "src/math.ts": "export const add = (a: number, b: number) => a + b;\n",
    "src/deep/grid.ts": "export const grid = [];\n",
    "node_modules/left-pad/index.js": "module.exports = 1;\n",
    "big.txt": "x".repeat(MAX_MENTION_BYTES + 1),
    "logo.png": "\x89PNG\r\n\x1a\n\0\0\0",
    ".env": "TOKEN=1\n",
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    writeFileSync(path.join(project, file), text);
  }
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, "secret.txt"), "the secret outside\n");
  // Links out of the project (a file and a folder), and one that stays inside.
  symlinkSync(path.join(outside, "secret.txt"), path.join(project, "src", "greeting-link.ts"));
  symlinkSync(outside, path.join(project, "src", "gr-out"));
  symlinkSync(path.join("src", "greet.ts"), path.join(project, "greet-alias.ts"));
});

afterAll(async () => {
  await closeLocks();
  rmSync(base, { recursive: true, force: true });
});

/** A session of a new team's project at `directory`, and its workspace (the project's files, where mentions are read). */
async function sessionIn(directory: string, services?: Services) {
  const team = await makeTeam({ directory, ...(services ? { services } : {}) });
  const session = await Session.create(team.ctx, { projectId: team.projectId });
  if (!session.workspaceId) throw new Error("a new session has a workspace");
  const workspace = (await team.ctx.workspaces.ready(session.workspaceId)).directory;
  return { ...team, session, workspace };
}

describe("project files for @ mentions (integration)", () => {
  it("lists the project's regular files matching what follows the @, relative to the project, best match first", async () => {
    const { ctx, session } = await sessionIn(project);
    expect(await Session.files(ctx, { sessionId: session.id, query: "src/gr" })).toEqual({ files: ["src/greet.ts"], complete: true });
    const byName = await Session.files(ctx, { sessionId: session.id, query: "gr" });
    // The file name starting with the query comes before a path merely containing it.
    expect(byName.files.slice(0, 2)).toEqual(["src/greet.ts", "src/deep/grid.ts"]);
  });

  it("never lists dependency or VCS folders, nor symlinks (wherever they lead)", async () => {
    const { ctx, session } = await sessionIn(project);
    const all = (await Session.files(ctx, { sessionId: session.id, query: "", limit: MAX_LISTED })).files;
    expect(all).toEqual(expect.arrayContaining(["README.md", ".env", "big.txt", "logo.png", "src/greet.ts", "src/math.ts", "src/deep/grid.ts"]));
    expect(all.filter((f) => f.startsWith("node_modules/") || f.startsWith(".git/"))).toEqual([]);
    expect(all).not.toContain("src/greeting-link.ts");
    expect(all).not.toContain("greet-alias.ts");
    expect(all.some((f) => f.startsWith("src/gr-out"))).toBe(false);
    expect(all.some((f) => path.isAbsolute(f) || f.includes(".."))).toBe(false);
    // Shallow files first when nothing is typed.
    expect(all.indexOf("README.md")).toBeLessThan(all.indexOf("src/deep/grid.ts"));
    expect(JSON.stringify(await Session.files(ctx, { sessionId: session.id, query: "secret" }))).not.toContain("secret");
  });

  it("answers a bounded number of files", async () => {
    const { ctx, session } = await sessionIn(project);
    expect((await Session.files(ctx, { sessionId: session.id, query: "", limit: 2 })).files).toHaveLength(2);
    await parleyError(Session.files(ctx, { sessionId: session.id, query: "", limit: MAX_LISTED + 1 }), "INVALID");
  });

  it("is refused for another team's session, as if it did not exist", async () => {
    const { session } = await sessionIn(project);
    const stranger = await makeTeam();
    await parleyError(Session.files(stranger.ctx, { sessionId: session.id, query: "" }), "NOT_FOUND");
  });

  it("ranks: path prefix, then file name prefix, then contained, then the characters in order in the file name", () => {
    expect(rank("src/greet.ts", "src/gr")).toBe(0);
    expect(rank("src/greet.ts", "greet")).toBe(1);
    expect(rank("src/greet.ts", "eet")).toBe(2);
    expect(rank("src/greet.ts", "gts")).toBe(3);
    expect(rank("src/greet.ts", "sgt")).toBeUndefined();
    expect(rank("src/deep/grid.ts", "src/gr")).toBeUndefined();
    expect(rank("src/greet.ts", "zz")).toBeUndefined();
    expect(rank("src/greet.ts", "./SRC/G")).toBe(0);
  });
});

describe("a mentioned file reaches the model (integration)", () => {
  function capturing() {
    const prompts: LanguageModelV4CallOptions["prompt"][] = [];
    const model = new MockLanguageModelV4({
      doStream: async (options) => {
        prompts.push(options.prompt);
        return {
          stream: convertArrayToReadableStream([
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Seen." },
            { type: "text-end", id: "t" },
            finish("stop"),
          ]),
        };
      },
    });
    return { model, prompts };
  }

  it("stores the mention as a file part with the file's content and sends that content to the model", async () => {
    const { model, prompts } = capturing();
    const bus = new Bus();
    const { ctx, session } = await sessionIn(project, scriptedServices(bus, model));
    await Session.prompt(ctx, { sessionId: session.id, parts: [{ type: "text", text: "explain @src/greet.ts" }, { type: "mention", path: "src/greet.ts" }] });
    await expect.poll(() => prompts.length, { timeout: 10_000 }).toBeGreaterThan(0);

    const [stored] = (await Session.messages(ctx, session.id, {})).messages;
    const file = stored?.parts.find((p) => p.type === "file");
    expect(file).toMatchObject({
      type: "file",
      mime: "text/plain",
      filename: "src/greet.ts",
      url: `data:text/plain;base64,${Buffer.from(GREET).toString("base64")}`,
      source: { type: "file", path: "src/greet.ts" },
    });
    const user = prompts[0]?.find((m) => m.role === "user");
    const texts = user?.role === "user" ? user.content.flatMap((p) => (p.type === "text" ? [p.text] : [])) : [];
    expect(texts).toEqual(["explain @src/greet.ts", `Called the read tool on src/greet.ts:\n${GREET}`]);
  });

  it("refuses, writing nothing, a mention leaving the project, through .. or a symlink, and one that is not a readable text file", async () => {
    const { ctx, session } = await sessionIn(project);
    const mention = (file: string) => Session.prompt(ctx, { sessionId: session.id, parts: [{ type: "text", text: `look at @${file}` }, { type: "mention", path: file }], noReply: true });
    expect((await parleyError(mention("../outside/secret.txt"), "INVALID")).message).toContain("outside the project");
    expect((await parleyError(mention(path.join(outside, "secret.txt")), "INVALID")).message).toContain("path inside the project");
    expect((await parleyError(mention("src/greeting-link.ts"), "INVALID")).message).toContain("leads outside the project");
    expect((await parleyError(mention("src/gr-out/secret.txt"), "INVALID")).message).toContain("leads outside the project");
    await parleyError(mention("src/nope.ts"), "NOT_FOUND");
    expect((await parleyError(mention("src"), "INVALID")).message).toContain("not a file");
    expect((await parleyError(mention("logo.png"), "INVALID")).message).toContain("not a text file");
    expect((await parleyError(mention("big.txt"), "INVALID")).message).toContain(`at most ${MAX_MENTION_BYTES / 1024} KB`);
    expect((await Session.messages(ctx, session.id, {})).messages).toEqual([]);

    // A link that stays inside the project is read like the file it leads to.
    await Session.prompt(ctx, { sessionId: session.id, parts: [{ type: "mention", path: "greet-alias.ts" }], noReply: true });
    const [stored] = (await Session.messages(ctx, session.id, {})).messages;
    expect(stored?.parts[0]).toMatchObject({ type: "file", filename: "greet-alias.ts", url: `data:text/plain;base64,${Buffer.from(GREET).toString("base64")}` });
  });

  it("refuses a file the rules deny reading", async () => {
    const { ctx, session } = await sessionIn(project);
    await Session.update(ctx, session.id, { permission: [{ permission: "read", pattern: "*.env", action: "deny" }] });
    const refused = await parleyError(Session.prompt(ctx, { sessionId: session.id, parts: [{ type: "mention", path: ".env" }], noReply: true }), "FORBIDDEN");
    expect(refused.message).toContain('"read" for ".env" is denied');
  });

  it("N5: refuses a FIFO at once (never opened for long), and reads mentions one at a time until the deadline, then notes the ones skipped", async () => {
    const fifoSession = await sessionIn(project);
    const fifo = path.join(fifoSession.workspace, "pipe.fifo");
    execFileSync("mkfifo", [fifo]);
    try {
      const { ctx, session } = fifoSession;
      const refused = await parleyError(Session.prompt(ctx, { sessionId: session.id, parts: [{ type: "mention", path: "pipe.fifo" }], noReply: true }), "INVALID");
      expect(refused.message).toBe("@pipe.fifo is a named pipe (FIFO): only regular files can be read or written.");
    } finally {
      rmSync(fifo);
    }
    // A clock that moves 1.5 s each time it is read: the second mention is past the deadline.
    let time = 0;
    const slow = { ...testServices(new Bus()), clock: { now: () => (time += 1_500) } };
    const { ctx, session } = await sessionIn(project, slow);
    const parts = ["README.md", "src/greet.ts", "src/math.ts"].map((file) => ({ type: "mention" as const, path: file }));
    await Session.prompt(ctx, { sessionId: session.id, parts, noReply: true });
    const [stored] = (await Session.messages(ctx, session.id, {})).messages;
    expect(stored?.parts.map((p) => (p.type === "file" ? p.filename : p.type === "text" ? p.text : p.type))).toEqual([
      "README.md",
      `(@src/greet.ts was not read: reading the mentioned files took longer than ${MENTIONS_DEADLINE_MS / 1000} s.)`,
      `(@src/math.ts was not read: reading the mentioned files took longer than ${MENTIONS_DEADLINE_MS / 1000} s.)`,
    ]);
  });
});
