import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { Agents, allows, inheritedRules } from "./agent";
import { sessionAgents } from "./project";
import { MAX_FILE_BYTES, readMarkdown } from "./repo-files";

/** Agent files of a session's working tree (`.opencode/agent(s)/*.md`), as OpenCode reads them. */

let dir: string;
let outside: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "parley-agent-files-"));
  outside = mkdtempSync(path.join(os.tmpdir(), "parley-agent-outside-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function write(file: string, text: string) {
  mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
}

const noWorkspace = { readFiles: () => Promise.reject(new Error("no workspace")) };
const resolve = (agents = new Agents()) => sessionAgents({ agents, workspaces: noWorkspace }, { directory: dir, workspaceId: null });

const TOOLS = ["bash", "edit", "glob", "grep", "list", "read", "task", "todoread", "todowrite", "write"];

describe("agent files", () => {
  it("A3: `tools: {write: false}` removes write and edit; `edit: false` does too; wildcards switch tools by pattern", async () => {
    write(".opencode/agent/careful.md", "---\ndescription: Careful\ntools:\n  write: false\n---\nBe careful.\n");
    write(".opencode/agent/noedit.md", "---\ndescription: No edits\ntools: {edit: false}\n---\n");
    write(".opencode/agent/narrow.md", '---\ndescription: Narrow\ntools: {"*": false, read: true, grep: true}\n---\n');
    const { agents, problems } = await resolve();
    expect(problems).toEqual([]);
    const has = (name: string) => TOOLS.filter((tool) => allows(agents.get(name), tool));
    expect(has("careful")).toEqual(["bash", "glob", "grep", "list", "read", "task", "todoread", "todowrite"]);
    expect(has("noedit")).not.toContain("write");
    expect(has("noedit")).not.toContain("edit");
    expect(has("narrow")).toEqual(["grep", "read"]);
    // A child of the careful agent cannot edit either.
    expect(inheritedRules(agents.get("careful"), TOOLS)).toEqual([{ permission: "edit", pattern: "*", action: "deny" }]);
  });

  it("reads every field: name overrides the file name, mode defaults to all, the body replaces the base prompt; agents/ replaces agent/", async () => {
    write(
      ".opencode/agent/file-name.md",
      "---\nname: reviewer\ndescription: Reviews\nmodel: openai/gpt-4.1\ntemperature: 0.1\nsteps: 7\nhidden: true\npermission:\n  bash:\n    \"git *\": allow\n    \"*\": deny\ncolor: '#ff0000'\n---\nYou review.\n",
    );
    write(".opencode/agent/twice.md", "---\ndescription: First\n---\n");
    write(".opencode/agents/twice.md", "---\ndescription: Second\nmode: primary\n---\n");
    const { agents } = await resolve();
    expect(agents.find("file-name")).toBeUndefined();
    expect(agents.get("reviewer")).toMatchObject({
      name: "reviewer",
      description: "Reviews",
      mode: "all",
      source: "project",
      hidden: true,
      model: { providerId: "openai", modelId: "gpt-4.1" },
      temperature: 0.1,
      steps: 7,
      prompt: "You review.",
      replacesPrompt: true,
      // Its allow rules are not applied: a repository's file only makes its agent stricter.
      permission: [{ permission: "bash", pattern: "*", action: "deny" }],
    });
    // mode all: a subagent for the task tool, and not in the picker while hidden.
    expect(agents.subagents().map((a) => a.name)).toContain("reviewer");
    expect(agents.primaries().map((a) => a.name)).toEqual(["build", "plan", "twice"]);
    expect(agents.get("twice").description).toBe("Second");
  });

  it("disable removes an agent; a file changes a built-in agent of its name; the default and internal agents stay", async () => {
    write(".opencode/agent/explore.md", "---\ndescription: Gone\ndisable: true\n---\n");
    write(".opencode/agent/plan.md", "---\ndescription: Our plan\nsteps: 5\n---\n");
    write(".opencode/agent/build.md", "---\ndescription: x\ndisable: true\n---\n");
    write(".opencode/agent/compaction.md", "---\ndescription: x\n---\nSummarize badly.\n");
    const { agents, problems } = await resolve();
    expect(agents.find("explore")).toBeUndefined();
    expect(agents.get("plan")).toMatchObject({ description: "Our plan", steps: 5, mode: "primary", prompt: expect.stringContaining("plan mode") });
    // Still read-only: the file did not give plan the tools it lacks.
    expect(allows(agents.get("plan"), "write")).toBe(false);
    expect(agents.get("build").name).toBe("build");
    expect(agents.get("compaction").prompt).toBeUndefined();
    expect(problems.join("\n")).toMatch(/build\.md: the default agent "build" cannot be disabled/);
    expect(problems.join("\n")).toMatch(/compaction\.md: "compaction" is an internal agent/);
  });

  it("a file without a description, with a bad name or bad frontmatter is left out and named", async () => {
    write(".opencode/agent/nodesc.md", "---\nmode: primary\n---\n");
    write(".opencode/agent/9bad.md", "---\ndescription: x\n---\n");
    write(".opencode/agent/yaml.md", "---\ndescription: &a x\n---\n");
    const { agents, problems } = await resolve();
    expect(agents.find("nodesc")).toBeUndefined();
    expect(problems).toHaveLength(3);
  });

  it("never follows a symlink out of the tree, and skips FIFOs and files past the size limit", async () => {
    writeFileSync(path.join(outside, "evil.md"), "---\ndescription: From outside\n---\n");
    mkdirSync(path.join(dir, ".opencode", "agent"), { recursive: true });
    symlinkSync(path.join(outside, "evil.md"), path.join(dir, ".opencode", "agent", "evil.md"));
    symlinkSync(outside, path.join(dir, ".opencode", "agents"));
    execFileSync("mkfifo", [path.join(dir, ".opencode", "agent", "pipe.md")]);
    write(".opencode/agent/huge.md", `---\ndescription: x\n---\n${"x".repeat(MAX_FILE_BYTES)}`);
    const { agents, problems } = await resolve();
    expect(agents.find("evil")).toBeUndefined();
    expect(agents.find("huge")).toBeUndefined();
    expect(problems.join("\n")).toMatch(/evil\.md: not a regular file/);
    expect(problems.join("\n")).toMatch(/\.opencode\/agents: a symbolic link/);
    expect(problems.join("\n")).toMatch(/huge\.md: .*larger than/);
    expect(problems.join("\n")).toMatch(/pipe\.md: not a regular file/);
    // The whole .opencode folder as a link is not followed either.
    rmSync(path.join(dir, ".opencode"), { recursive: true });
    mkdirSync(path.join(outside, "agent"));
    writeFileSync(path.join(outside, "agent", "evil.md"), "---\ndescription: From outside\n---\n");
    symlinkSync(outside, path.join(dir, ".opencode"));
    expect((await readMarkdown(dir, [".opencode/agent"], false)).files).toEqual([]);
  });

  it("nested command folders give dir/name", async () => {
    write(".opencode/command/review/deep.md", "Deep review");
    write(".opencode/command/top.md", "Top");
    const { files } = await readMarkdown(dir, [".opencode/command"], true);
    expect(files.map((f) => f.name).sort()).toEqual(["review/deep", "top"]);
  });

  it("built-in agents' steps are configurable", () => {
    writeFileSync(path.join(dir, "parley.config.json"), JSON.stringify({ agents: { build: { steps: 80 }, explore: { steps: 9 } } }));
    const agents = new Agents(loadConfig({}, dir).agents);
    expect(agents.get("build").steps).toBe(80);
    expect(agents.get("explore").steps).toBe(9);
    expect(agents.get("explore").source).toBe("built-in");
  });
});
