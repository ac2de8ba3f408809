import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Listed as AgentList } from "../server/agent/api";
import type { Listed as CommandList, RunResult, TeamCommand } from "../server/command/command";
import type { Request as PermissionRequest } from "../server/permission/events";
import type { Info } from "../server/session/info";
import type { Part, PartOf, UserMessage, WithParts } from "../server/session/message";
import type { ShellRun } from "../server/session/shell";
import { memberCalls, until } from "./app";
import { appSuite, scriptedOpenAI } from "./suite";
import type { Browser } from "./auth";
import { annInvitesBob } from "./two-teams";
import { reply, toolCallSteps } from "./fake-openai";
import { settled } from "./session-harness";

/**
 * What a repository tells its agent, part 2 (issue 32, acceptance 3 and 4): prompt
 * commands (`.opencode/command(s)`, team commands, built-ins) and agent files
 * (`.opencode/agent/*.md`), through the real tRPC Route Handler with real sign-in cookies,
 * a fake OpenAI-compatible provider that records what the model is sent, and the real
 * sandbox running each `` !`cmd` ``.
 */

const MODEL = { providerId: "compatible", modelId: "gpt-test" };

const FILES: Record<string, string> = {
  "notes.md": "The notes say forty-two.\n",
  ".env": "API_KEY=sk-from-the-env-file\n",
  ".opencode/command/leak.md": "Here is the config: @.env\n",
  ".opencode/command/help-me.md": "---\ndescription: Ask the helper\nagent: helper\n---\nHelp with $ARGUMENTS\n",
  ".opencode/command/greet.md": "---\ndescription: Greet two people\n---\nSay hello to $1 and then to $2.\n",
  ".opencode/commands/ops/deploy.md": "---\ndescription: Deploy somewhere\n---\nDeploy $ARGUMENTS now.\n",
  ".opencode/command/plain.md": "Summarize the project.\n",
  ".opencode/command/sandbox.md": "---\ndescription: Who runs commands\n---\n[sandbox] uid !`id -u` end\n",
  ".opencode/command/danger.md": "Planting: !`echo before` then !`touch planted.txt`\n",
  ".opencode/command/withfile.md": "Read @notes.md (and @missing.md, which is not there) for $ARGUMENTS\n",
  ".opencode/command/planner.md": "---\ndescription: Plan it\nagent: plan\nmodel: compatible/gpt-other\n---\nPlan $ARGUMENTS\n",
  ".opencode/command/look.md": "---\ndescription: Look around\nagent: explore\n---\nFind $ARGUMENTS\n",
  ".opencode/command/review.md": "---\ndescription: Our own review\n---\nCustom review of $ARGUMENTS\n",
  ".opencode/agent/careful.md": [
    "---",
    "description: A careful agent that never writes files",
    "mode: primary",
    "temperature: 0.3",
    "tools:",
    "  write: false",
    "permission:",
    "  bash: allow",
    "---",
    "You are the careful agent of this repository.",
    "",
  ].join("\n"),
  ".opencode/agents/helper.md": "---\ndescription: A helper subagent\nmode: subagent\n---\nYou help.\n",
  ".opencode/agent/broken.md": "---\ndescription: [unclosed\n---\nbody\n",
};

describe("commands and agent files of a repository (integration, through HTTP)", () => {
  // Titles are asked without tools: the scripts are for the session's turns.
  const { fake, scripts } = scriptedOpenAI({ isTitle: (request) => !request.body.tools?.length, fallback: reply.text("ok") });
  const app = appSuite("repository_commands", (dir) => {
    const project = path.join(dir, "projects", "app");
    for (const [file, text] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
      writeFileSync(path.join(project, file), text);
    }
    // The server's own commands: one of its own, and two that the team's and the repository's replace.
    const config = path.join(dir, "parley.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        command: {
          confignote: { template: "Config says $ARGUMENTS", description: "From the server" },
          greet: { template: "The server's greeting" },
          standup: { template: "The server's standup" },
        },
      }),
    );
    return {
      PARLEY_CONFIG: config,
      PARLEY_DATA_DIR: path.join(dir, "data"),
      PARLEY_PROJECT_DIR: project,
      PARLEY_PROJECTS_ROOT: path.join(dir, "projects"),
      PARLEY_SIGNUP: "invite",
      OPENAI_BASE_URL: `${fake.url}/v1`,
      PARLEY_MODEL: "compatible/gpt-test",
    };
  });
  let ann: Browser;
  let bob: Browser;
  let projectId: string;

  beforeAll(async () => {
    ({ ann, bob, projectId } = await annInvitesBob(app, "commands", { name: "Bob" }));
    // The team's policy: no `rm` and no `touch`, whatever an agent or a member says.
    await data("permission.setPolicy", {
      rules: [
        { permission: "bash", pattern: "rm *", action: "deny" },
        { permission: "bash", pattern: "touch *", action: "deny" },
      ],
    }, ann);
  });

  const { call, ok: data } = memberCalls(() => app);
  const newSession = async (who: Browser, extra: Record<string, unknown> = {}) => (await data<Info>("session.create", { projectId, model: MODEL, ...extra }, who)).id;
  const history = async (who: Browser, sessionId: string) => (await data<{ messages: WithParts[] }>("message.page", { sessionId, limit: 200 }, who)).messages;
  const command = (who: Browser, sessionId: string, name: string, args = "") => call<RunResult>("session.command", { sessionId, command: name, arguments: args, model: MODEL }, who);
  const textOf = (parts: Part[]) => parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
  const lastUser = async (who: Browser, sessionId: string) => {
    const found = (await history(who, sessionId)).filter((m) => m.info.role === "user").at(-1);
    if (!found) throw new Error("no user message");
    return found;
  };
  const toolParts = (messages: WithParts[]) => messages.flatMap((m) => m.parts.filter((p): p is PartOf<"tool"> => p.type === "tool"));
  const idle = (sessionId: string) => settled(app.rt.services, sessionId, 30_000);

  /** Bob runs the command `name` in `sessionId`: it is accepted; the prompt it sent, once the turn is over. */
  async function commandPrompt(sessionId: string, name: string, args: string): Promise<string> {
    const run = await command(bob, sessionId, name, args);
    expect(run.status, run.text).toBe(200);
    const sent = textOf((await lastUser(bob, sessionId)).parts);
    await idle(sessionId);
    return sent;
  }

  /** Answer the next permission question of a session "once" (the member is asked, like for any bash call). */
  async function approveNext(who: Browser, sessionId: string, permission = "bash"): Promise<PermissionRequest> {
    const asked = await until("the permission question", async () => (await data<PermissionRequest[]>("permission.pending", { sessionId }, who)).find((r) => r.permission === permission));
    await data("permission.reply", { requestId: asked.id, reply: "once" }, who);
    return asked;
  }

  it("C1: $1/$2 (the last taking the rest, quotes dropped), $ARGUMENTS in a nested command, and arguments appended to a template without placeholders", async () => {
    const sessionId = await newSession(bob);
    expect(await commandPrompt(sessionId, "greet", 'Ann "Bob the Builder" and Carl')).toBe("Say hello to Ann and then to Bob the Builder and Carl.");

    expect(await commandPrompt(sessionId, "ops/deploy", "staging --fast")).toBe("Deploy staging --fast now.");

    expect(await commandPrompt(sessionId, "plain", "focus on tests")).toBe("Summarize the project.\n\nfocus on tests");
  });

  it("C2: command.list shows every source with descriptions and argument hints; later sources replace earlier ones, and a repository command overrides the built-in /review", async () => {
    await data("command.teamSet", { name: "standup", template: "Standup for $1 about $ARGUMENTS", description: "Team standup" }, ann);
    const sessionId = await newSession(bob);
    const listed = await data<CommandList>("command.list", { sessionId }, bob);
    const byName = new Map(listed.commands.map((c) => [c.name, c]));
    expect(byName.get("greet")).toMatchObject({ description: "Greet two people", hints: ["$1", "$2"], source: "project", path: ".opencode/command/greet.md" });
    expect(byName.get("ops/deploy")).toMatchObject({ hints: ["$ARGUMENTS"], source: "project" });
    expect(byName.get("standup")).toMatchObject({ description: "Team standup", hints: ["$1", "$ARGUMENTS"], source: "team" });
    expect(byName.get("init")).toMatchObject({ source: "built-in", hints: ["$ARGUMENTS"] });
    expect(byName.get("undo")).toMatchObject({ source: "built-in", hints: [] });
    expect(byName.get("review")).toMatchObject({ source: "project", description: "Our own review" });
    // Precedence: built-in → server configuration → team → repository.
    expect(byName.get("confignote")).toMatchObject({ source: "config", description: "From the server", hints: ["$ARGUMENTS"] });
    expect(await commandPrompt(sessionId, "confignote", "hello")).toBe("Config says hello");

    // The override runs, not the built-in (which would need the session's diff).
    expect(await commandPrompt(sessionId, "review", "the parser")).toBe("Custom review of the parser");

    // A team command runs for every member.
    expect(await commandPrompt(sessionId, "standup", 'Bob "the release" notes')).toBe('Standup for Bob the release notes about Bob "the release" notes');
  });

  it("C3: team commands are written by owners and admins only; members read them", async () => {
    const refused = await call("command.teamSet", { name: "sneaky", template: "!`rm -rf .`" }, bob);
    expect(refused.status).toBe(403);
    expect((await call("command.teamRemove", { name: "standup" }, bob)).status).toBe(403);
    const seen = await data<TeamCommand[]>("command.teamList", undefined, bob);
    expect(seen.map((c) => c.name)).toEqual(["standup"]);
  });

  it("C4: !`cmd` asks like any bash call, runs in the sandbox as a tool part of the session, and its output replaces it", async () => {
    const sessionId = await newSession(bob);
    const running = command(bob, sessionId, "sandbox");
    const asked = await approveNext(bob, sessionId);
    expect(asked.patterns).toEqual(["id -u"]);
    const result = await running;
    expect(result.status, result.text).toBe(200);
    await idle(sessionId);
    const messages = await history(bob, sessionId);
    const [tool] = toolParts(messages);
    expect(tool?.tool).toBe("bash");
    expect(tool?.state.status).toBe("completed");
    // The sandbox's own user, not the server's (root).
    const output = tool?.state.status === "completed" ? tool.state.output.trim() : "";
    expect(output).toBe("65500");
    expect(textOf((await lastUser(bob, sessionId)).parts)).toBe("[sandbox] uid 65500 end");
  });

  it("C5: a command whose !`cmd` the policy denies is refused clearly, and nothing of it runs (not even the allowed one before it)", async () => {
    const sessionId = await newSession(bob);
    const before = (await history(bob, sessionId)).length;
    const refused = await command(bob, sessionId, "danger");
    expect(refused.status).toBe(403);
    expect(refused.message).toMatch(/`touch planted\.txt` was not run, and nothing else: Permission denied: "bash" for "touch planted\.txt"/);
    expect(refused.message).toContain("(team policy)");
    expect((await history(bob, sessionId)).length).toBe(before);
    expect(await data<PermissionRequest[]>("permission.pending", { sessionId }, bob)).toEqual([]);
    const session = await data<Info>("session.get", { sessionId }, bob);
    expect(existsSync(path.join(session.directory, "planted.txt"))).toBe(false);
  });

  it("C6: @file in a template is included like a mention; a name that is no file stays text", async () => {
    const sessionId = await newSession(bob);
    expect((await command(bob, sessionId, "withfile", "the answer")).status).toBe(200);
    const user = await lastUser(bob, sessionId);
    expect(textOf(user.parts)).toBe("Read @notes.md (and @missing.md, which is not there) for the answer");
    const files = user.parts.filter((p): p is PartOf<"file"> => p.type === "file");
    expect(files.map((f) => f.filename)).toEqual(["notes.md"]);
    expect(Buffer.from(files[0]?.url.split(",")[1] ?? "", "base64").toString()).toBe("The notes say forty-two.\n");
    await idle(sessionId);
  });

  it("C6b: a file the rules ask about before reading is not put in a prompt by a command's template (the member did not name it)", async () => {
    const sessionId = await newSession(bob);
    const refused = await command(bob, sessionId, "leak");
    expect(refused.status).toBe(403);
    expect(refused.message).toMatch(/@\.env: the rules ask before this file is read/);
    expect(JSON.stringify(await history(bob, sessionId))).not.toContain("sk-from-the-env-file");
  });

  it("C7: frontmatter agent and model are the turn's; a subagent's command runs as a subtask", async () => {
    const sessionId = await newSession(bob);
    expect((await command(bob, sessionId, "planner", "the release")).status).toBe(200);
    const planned = (await lastUser(bob, sessionId)).info as UserMessage;
    expect(planned.agent).toBe("plan");
    expect(planned.model).toEqual({ providerId: "compatible", modelId: "gpt-other" });
    await idle(sessionId);

    expect((await command(bob, sessionId, "look", "the parser")).status).toBe(200);
    const subtask = (await lastUser(bob, sessionId)).parts.find((p): p is PartOf<"subtask"> => p.type === "subtask");
    expect(subtask).toMatchObject({ agent: "explore", prompt: "Find the parser" });
    await idle(sessionId);

    // A subagent of the repository's own agent files.
    expect((await command(bob, sessionId, "help-me", "the tests")).status).toBe(200);
    const helped = (await lastUser(bob, sessionId)).parts.find((p): p is PartOf<"subtask"> => p.type === "subtask");
    expect(helped).toMatchObject({ agent: "helper", prompt: "Help with the tests" });
    await idle(sessionId);
    const child = (await data<Info[]>("session.children", { sessionId }, bob)).find((c) => c.agent === "helper");
    expect(child?.title).toMatch(/@helper subagent/);
  });

  it("C8: /undo reverts the last turn and answers with its prompt for the composer; /redo brings it back", async () => {
    const sessionId = await newSession(bob);
    await data("session.prompt", { sessionId, parts: [{ type: "text", text: "first message" }], model: MODEL }, bob);
    await idle(sessionId);
    const second = await data<UserMessage>("session.prompt", { sessionId, parts: [{ type: "text", text: "fix the greeting, please" }], model: MODEL }, bob);
    await idle(sessionId);

    const undone = await command(bob, sessionId, "undo");
    expect(undone.status, undone.text).toBe(200);
    expect(undone.data).toMatchObject({ type: "undo", text: "fix the greeting, please" });
    expect((await data<Info>("session.get", { sessionId }, bob)).revert?.messageId).toBe(second.id);

    const redone = await command(bob, sessionId, "redo");
    expect(redone.status, redone.text).toBe(200);
    expect((await data<Info>("session.get", { sessionId }, bob)).revert).toBeUndefined();
  });

  it("C10: the built-ins /init, /compact and /share", async () => {
    const sessionId = await newSession(bob);
    expect((await command(bob, sessionId, "init", "mention the e2e tests")).status).toBe(200);
    const init = textOf((await lastUser(bob, sessionId)).parts);
    expect(init).toMatch(/^Please analyze this codebase and create an AGENTS\.md file/);
    expect(init).toMatch(/mention the e2e tests$/);
    await idle(sessionId);

    const compacted = await command(bob, sessionId, "compact");
    expect(compacted.status, compacted.text).toBe(200);
    expect(compacted.data.type).toBe("compact");
    await idle(sessionId);

    const shared = await command(bob, sessionId, "share");
    expect(shared.status, shared.text).toBe(200);
    expect(shared.data.type === "share" && shared.data.session.share?.url).toMatch(/\/share\//);
  });

  it("C12: the built-in /review puts the session's changes (its workspace's diff) in the prompt", async () => {
    const empty = await data<{ id: string }>("project.createEmpty", { folder: "plain" }, ann);
    const sessionId = (await data<Info>("session.create", { projectId: empty.id, model: MODEL }, bob)).id;
    const running = call<ShellRun>("session.shell", { sessionId, command: "printf 'first line\\n' > added.txt" }, bob);
    await approveNext(bob, sessionId);
    expect((await running).status).toBe(200);
    const listed = await data<CommandList>("command.list", { sessionId }, bob);
    expect(listed.commands.find((c) => c.name === "review")).toMatchObject({ source: "built-in" });
    const reviewed = await command(bob, sessionId, "review", "look at naming");
    expect(reviewed.status, reviewed.text).toBe(200);
    const text = textOf((await lastUser(bob, sessionId)).parts);
    expect(text).toMatch(/^Review the changes of this session/);
    expect(text).toContain("look at naming");
    expect(text).toContain("added added.txt (+1 -0)");
    expect(text).toContain("+first line");
    await idle(sessionId);
  });

  it("C9: !command runs as a user-initiated bash part after approval, and its output is in what the model reads next", async () => {
    const sessionId = await newSession(bob);
    const running = call<ShellRun>("session.shell", { sessionId, command: "echo shell-output-$((6*7))" }, bob);
    await approveNext(bob, sessionId);
    const ran = await running;
    expect(ran.status, ran.text).toBe(200);
    const [part] = ran.data.parts;
    expect(part?.state.status === "completed" && part.state.output.trim()).toBe("shell-output-42");

    fake.requests.length = 0;
    await data("session.prompt", { sessionId, parts: [{ type: "text", text: "what did it print?" }], model: MODEL }, bob);
    await idle(sessionId);
    const sent = JSON.stringify(fake.requests.at(-1)?.body.messages);
    expect(sent).toContain("shell-output-42");
  });

  it("C11: a prompt sent while a member's command waits for its answer is answered once the command is done; a second command meanwhile is refused as busy", async () => {
    const sessionId = await newSession(bob);
    const running = call<ShellRun>("session.shell", { sessionId, command: "echo first" }, bob);
    await until("the question", async () => (await data<PermissionRequest[]>("permission.pending", { sessionId }, bob))[0]);
    const busy = await call("session.shell", { sessionId, command: "echo second" }, bob);
    expect(busy.status).toBe(409);
    const queued = await data<UserMessage>("session.prompt", { sessionId, parts: [{ type: "text", text: "and now?" }], model: MODEL }, bob);
    await approveNext(bob, sessionId);
    const ran = await running;
    expect(ran.status).toBe(200);
    await idle(sessionId);
    const messages = await history(bob, sessionId);
    const answer = messages.find((m) => m.info.role === "assistant" && m.info.parentId === queued.id);
    expect(answer?.parts.some((p) => p.type === "text" && p.text === "ok")).toBe(true);
    // Not beside the command: the agent started on the prompt only once the command was done.
    expect(answer?.info.time.created).toBeGreaterThanOrEqual(ran.data.message.time.completed ?? Number.POSITIVE_INFINITY);
  });

  it("C13: what a member's command changes is reverted with its message (/undo), and comes back with /redo", async () => {
    const sessionId = await newSession(bob);
    const directory = (await data<Info>("session.get", { sessionId }, bob)).directory;
    const running = call<ShellRun>("session.shell", { sessionId, command: "echo made > made-by-shell.txt" }, bob);
    await approveNext(bob, sessionId);
    expect((await running).status).toBe(200);
    expect(readFileSync(path.join(directory, "made-by-shell.txt"), "utf8")).toBe("made\n");
    const patch = (await history(bob, sessionId)).flatMap((m) => m.parts).find((p): p is PartOf<"patch"> => p.type === "patch");
    expect(patch?.files).toEqual(["made-by-shell.txt"]);

    expect((await command(bob, sessionId, "undo")).status).toBe(200);
    expect(existsSync(path.join(directory, "made-by-shell.txt"))).toBe(false);
    expect((await command(bob, sessionId, "redo")).status).toBe(200);
    expect(readFileSync(path.join(directory, "made-by-shell.txt"), "utf8")).toBe("made\n");
  });

  it("A1: an agent file is listed for the picker; `tools: {write: false}` removes write and edit; its body replaces the base prompt; its temperature is sent", async () => {
    const sessionId = await newSession(bob);
    const agents = await data<AgentList>("agent.list", { sessionId }, bob);
    expect(agents.agents.map((a) => a.name)).toEqual(["build", "plan", "careful"]);
    expect(agents.agents.at(-1)).toMatchObject({ source: "project", description: "A careful agent that never writes files" });
    expect(agents.problems.join("\n")).toMatch(/\.opencode\/agent\/broken\.md/);

    fake.requests.length = 0;
    await data("session.prompt", { sessionId, agent: "careful", parts: [{ type: "text", text: "hello" }], model: MODEL }, bob);
    await idle(sessionId);
    const body = fake.requests.at(-1)?.body;
    const tools = (body?.tools ?? []).map((t) => t.function.name);
    expect(tools).toContain("read");
    expect(tools).toContain("bash");
    expect(tools).not.toContain("write");
    expect(tools).not.toContain("edit");
    // The task tool offers the repository's subagents with the server's.
    const task = body?.tools?.find((t) => t.function.name === "task")?.function.description ?? "";
    expect(task).toContain("- helper: A helper subagent");
    expect(task).toContain("- explore:");
    const system = body?.messages.find((m) => m.role === "system");
    const systemText = typeof system?.content === "string" ? system.content : JSON.stringify(system?.content);
    expect(systemText.startsWith("You are the careful agent of this repository.")).toBe(true);
    expect(systemText).not.toContain("You are Parley's coding agent");
    expect(body?.temperature).toBe(0.3);
  });

  it("A2: a project agent allowing bash cannot run what the team's policy denies (as a member, through tRPC), nor skip the built-in question for other commands", async () => {
    const sessionId = await newSession(bob);
    const directory = (await data<Info>("session.get", { sessionId }, bob)).directory;
    scripts.set("careful", [
      reply.stream([...toolCallSteps({ id: "c1", name: "bash", pieces: [JSON.stringify({ command: "rm -f notes.md", description: "remove" })] }), { kind: "finish", reason: "tool_calls" }, { kind: "usage", usage: { prompt: 10, completion: 5 } }]),
      reply.stream([...toolCallSteps({ id: "c2", name: "bash", pieces: [JSON.stringify({ command: "echo asked-despite-the-agent", description: "echo" })] }), { kind: "finish", reason: "tool_calls" }, { kind: "usage", usage: { prompt: 10, completion: 5 } }]),
      reply.text("done"),
    ]);
    await data("session.prompt", { sessionId, agent: "careful", parts: [{ type: "text", text: "[careful] clean up" }], model: MODEL }, bob);
    // The file's `bash: allow` does not stop the built-in question either: the member answers it.
    const asked = await approveNext(bob, sessionId);
    expect(asked.patterns).toEqual(["echo asked-despite-the-agent"]);
    await idle(sessionId);
    const [removed, echoed] = toolParts(await history(bob, sessionId));
    expect(removed?.state.status).toBe("error");
    expect(removed?.state.status === "error" && removed.state.error).toMatch(/Permission denied: "bash" for "rm -f notes\.md".*\(team policy\)/);
    expect(readFileSync(path.join(directory, "notes.md"), "utf8")).toBe("The notes say forty-two.\n");
    expect(echoed?.state.status === "completed" && echoed.state.output.trim()).toBe("asked-despite-the-agent");
  });
});
