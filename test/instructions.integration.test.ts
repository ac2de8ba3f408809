import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Info } from "../server/session/info";
import type { AssistantMessage, PartOf, WithParts } from "../server/session/message";
import { WorkspaceRepo } from "../server/workspace/repo";
import { type TestApp, memberCalls, openApp, projectAppEnv, trpcData, until } from "./app";
import type { Browser } from "./auth";
import { annInvitesBob } from "./two-teams";
import { git } from "./git-server";
import { isTitleRequest, reply, systemOf, tagOf } from "./fake-openai";
import { scriptedOpenAI } from "./suite";
import { holdCalls } from "./gate";
import { settled } from "./session-harness";

/**
 * What a repository, its team and the server's configuration tell the agent (SPEC §17),
 * through the real Route Handlers with real sign-in cookies and a fake OpenAI-compatible
 * provider that records the exact system prompt it is sent.
 */

const MODEL = { providerId: "compatible", modelId: "gpt-test" };

describe("instructions (integration, through HTTP)", () => {
  const { fake, scripts } = scriptedOpenAI({ isTitle: isTitleRequest, fallback: reply.text("done") });
  let remote: http.Server;
  let remoteUrl: string;
  let app: TestApp;
  let ann: Browser;
  let bob: Browser;
  let projectId: string;

  /** The agent's requests of a tag, in order. */
  const requestsOf = (tag: string) => fake.requests.filter((request) => tagOf(request) === tag && !isTitleRequest(request));

  beforeAll(async () => {
    remote = http.createServer((_req, res) => res.writeHead(200, { "content-type": "text/markdown" }).end("Remote rule: say hello."));
    await new Promise<void>((resolve) => remote.listen(0, "127.0.0.1", resolve));
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/rules.md`;
    app = await openApp("instructions", (dir) => {
      const config = path.join(dir, "parley.config.json");
      writeFileSync(config, JSON.stringify({ instructions: ["docs/*.md", remoteUrl], instructionUrls: true }));
      return projectAppEnv(dir, {
        PARLEY_CONFIG: config,
        PARLEY_SIGNUP: "invite",
        OPENAI_BASE_URL: `${fake.url}/v1`,
        PARLEY_MODEL: "compatible/gpt-test",
      });
    });
    ({ ann, bob, projectId } = await annInvitesBob(app, "instructions"));
  });

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => remote?.close(resolve));
  });

  const { call, ok: data } = memberCalls(() => app);

  /** A new session of Ann's, its workspace made, with `files` written into it. */
  async function sessionWith(files: Record<string, string>): Promise<{ id: string; dir: string }> {
    const info = await data<Info>("session.create", { projectId }, ann);
    await app.rt.services.workspaces.ready(info.workspaceId ?? "");
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(info.directory, name)), { recursive: true });
      writeFileSync(path.join(info.directory, name), text);
    }
    return { id: info.id, dir: info.directory };
  }

  async function turn(sessionId: string, text: string): Promise<WithParts[]> {
    await data("session.prompt", { sessionId, parts: [{ type: "text", text }], model: MODEL }, ann);
    await settled(app.rt.services, sessionId, 30_000);
    return (await data<{ messages: WithParts[] }>("message.page", { sessionId, limit: 200 }, ann)).messages;
  }

  const answers = (messages: WithParts[]) => messages.map((m) => m.info).filter((m): m is AssistantMessage => m.role === "assistant");

  it("I1: members read the team's and a project's instructions but cannot write them; owners and admins can", async () => {
    expect((await call("instructions.set", { text: "Members rule now" }, bob)).status).toBe(403);
    expect((await call("instructions.set", { projectId, text: "Members rule now" }, bob)).status).toBe(403);
    expect(await data("instructions.set", { text: "Team rule: answer in English." }, ann)).toEqual({ text: "Team rule: answer in English.", editable: true });
    await data("instructions.set", { projectId, text: "Project rule: run the tests." }, ann);
    expect(await data("instructions.get", {}, bob)).toEqual({ text: "Team rule: answer in English.", editable: false });
    expect(await data("instructions.get", { projectId }, bob)).toEqual({ text: "Project rule: run the tests.", editable: false });
    expect((await call("instructions.set", { text: "x".repeat(40_000) }, ann)).status).toBe(400);
  });

  it("I2: the exact system prompt holds the team's, the project's, the rule files, the configured files and the URL, in that order, after the environment", async () => {
    const session = await sessionWith({
      "AGENTS.md": "Repo rule: use tabs.",
      "CLAUDE.md": "Never read: AGENTS.md wins.",
      "docs/rules.md": "Docs rule: small commits.",
      "docs/style.md": "Style rule: short names.",
    });
    const messages = await turn(session.id, "[order] hello");
    const system = systemOf(requestsOf("order")[0]);
    const blocks = [
      "Instructions from: team\nTeam rule: answer in English.",
      "Instructions from: project\nProject rule: run the tests.",
      "Instructions from: AGENTS.md\nRepo rule: use tabs.",
      "Instructions from: docs/rules.md\nDocs rule: small commits.",
      "Instructions from: docs/style.md\nStyle rule: short names.",
      `Instructions from: ${remoteUrl}\nRemote rule: say hello.`,
    ];
    expect(system.slice(system.indexOf("</env>"))).toBe(`</env>\n\n${blocks.join("\n\n")}`);
    expect(system).not.toContain("AGENTS.md wins");
    const [answer] = answers(messages);
    expect(answer?.instructions?.map((source) => source.label)).toEqual(["team", "project", "AGENTS.md", "docs/rules.md", "docs/style.md", remoteUrl]);
    // A member opens one: its text as it reads now, unchanged since the turn.
    expect(await data("instructions.open", { sessionId: session.id, messageId: answer?.id, label: "AGENTS.md" }, bob)).toEqual({ kind: "file", label: "AGENTS.md", text: "Repo rule: use tabs.", changed: false });
    // Only what the turn recorded can be opened.
    expect((await call("instructions.open", { sessionId: session.id, messageId: answer?.id, label: "CLAUDE.md" }, bob)).status).toBe(404);

    // An admin's new team instruction is in the next turn, and the record says so.
    await data("instructions.set", { text: "Team rule: answer in French." }, ann);
    const next = await turn(session.id, "[order] again");
    expect(systemOf(requestsOf("order")[1])).toContain("Instructions from: team\nTeam rule: answer in French.");
    const [first, second] = answers(next);
    expect(second?.instructions?.[0]?.sha256).not.toBe(first?.instructions?.[0]?.sha256);
    expect(await data("instructions.open", { sessionId: session.id, messageId: first?.id, label: "team" }, bob)).toMatchObject({ text: "Team rule: answer in French.", changed: true });
    await data("instructions.set", { text: "Team rule: answer in English." }, ann);
  });

  it("I3: a read in a folder appends the folder's AGENTS.md once per turn; share viewers get its name only when the project keeps it private", async () => {
    const session = await sessionWith({ "AGENTS.md": "root", "pkg/AGENTS.md": "Package rule: no globals.", "pkg/a.ts": "export const a = 1;\n", "pkg/b.ts": "export const b = 2;\n" });
    const read = (id: string, file: string) => reply.toolCall({ id, name: "read", pieces: [JSON.stringify({ filePath: file })] });
    scripts.set("nested", [read("call_a", "pkg/a.ts"), read("call_b", "pkg/b.ts"), reply.text("read both")]);
    const messages = await turn(session.id, "[nested] read pkg/a.ts and pkg/b.ts");
    const reads = messages.flatMap((m) => m.parts).filter((p): p is PartOf<"tool"> => p.type === "tool" && p.tool === "read");
    const outputs = reads.map((p) => (p.state.status === "completed" ? p.state.output : ""));
    expect(outputs[0]).toContain("<system-reminder>\nInstructions from: pkg/AGENTS.md\nPackage rule: no globals.\n</system-reminder>");
    expect(outputs[1]).not.toContain("Instructions from");
    expect(reads.map((p) => (p.state.status === "completed" ? p.state.metadata.loaded : undefined))).toEqual([["pkg/AGENTS.md"], undefined]);
    // The model got it once, in the first result, not in the system prompt.
    expect(systemOf(requestsOf("nested")[0])).not.toContain("pkg/AGENTS.md");

    await data("permission.setPolicy", { projectId, rules: [{ permission: "read", pattern: "pkg/AGENTS.md", action: "ask" }] }, ann);
    const share = (await data<Info>("session.share", { sessionId: session.id }, ann)).share;
    const shareId = share?.url.split("/").at(-1) ?? "";
    const page = await trpcData<{ messages: { messages: WithParts[] } }>(app, "share.page", { shareId, limit: 200 }, new Headers());
    const shown = JSON.stringify(page.messages.messages);
    expect(shown).not.toContain("Package rule");
    expect(shown).toContain("Instructions from: pkg/AGENTS.md (not shared: the project keeps these files private)");
    const [answer] = answers(page.messages.messages);
    expect(answer?.instructions).toEqual([
      { kind: "team", label: "team" },
      { kind: "project", label: "project" },
      { kind: "file", label: "AGENTS.md" },
      { kind: "url", label: remoteUrl },
    ]);
    await data("permission.setPolicy", { projectId, rules: [] }, ann);
  });
  it("I4: a new session's first answer does not wait for its working tree: its rule files are read from its base commit", async () => {
    const projectDir = (await app.rt.services.db.project.findUniqueOrThrow({ where: { id: projectId } })).directory;
    // The project's repository (made from its folder if need be) holds AGENTS.md on its default branch.
    await app.rt.services.workspaces.checkBranch({ directory: projectDir }, "main");
    writeFileSync(path.join(projectDir, "AGENTS.md"), "Base rule: be brief.");
    git(projectDir, "add", "AGENTS.md");
    git(projectDir, "-c", "user.name=T", "-c", "user.email=t@t", "commit", "-qm", "Rules");
    const held = holdCalls(WorkspaceRepo.prototype, "createWorkTree");
    try {
      scripts.set("i4", [reply.text("brief")]);
      const info = await data<Info>("session.create", { projectId }, ann);
      await data("session.prompt", { sessionId: info.id, parts: [{ type: "text", text: "[i4] hello" }], model: MODEL }, ann);
      await until("the first request", async () => (requestsOf("i4").length > 0 ? true : undefined));
      // Asked while the checkout is still held: the answer did not wait for it.
      expect(await app.rt.services.workspaces.isReady(info.workspaceId ?? "")).toBe(false);
      expect(systemOf(requestsOf("i4")[0])).toContain("Instructions from: AGENTS.md\nBase rule: be brief.");
      held.release();
      await settled(app.rt.services, info.id, 30_000);
      expect(answers(await turn(info.id, "[i4] again")).at(-1)?.instructions?.map((source) => source.label)).toContain("AGENTS.md");
    } finally {
      held.release();
      held.restore();
    }
  });
});
