import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { WithParts } from "../session/message";
import { StepRules, loadedRules } from "./nested";
import { DEFAULT_MAX_FILE_BYTES, type InstructionSettings, gather } from "./sources";

/** Rule files and instruction sources on real folders (SPEC §17). */

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), "parley-instructions-")));
let root: string;
let outside: string;
let n = 0;

beforeEach(() => {
  n++;
  root = path.join(tmp, `project-${n}`);
  outside = path.join(tmp, `outside-${n}`);
  mkdirSync(root, { recursive: true });
  mkdirSync(outside, { recursive: true });
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function write(relative: string, text: string): void {
  const file = path.join(root, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const NONE: InstructionSettings = { paths: [], allowUrls: false };
const labels = (sources: { label: string; skipped?: string }[]) => sources.filter((s) => s.skipped === undefined).map((s) => s.label);

describe("rule files", () => {
  it("AGENTS.md beats CLAUDE.md in the same folder, and every AGENTS.md on the way up is included, the root's first", async () => {
    write("AGENTS.md", "root agents");
    write("CLAUDE.md", "root claude");
    write("pkg/AGENTS.md", "pkg agents");
    write("pkg/CLAUDE.md", "pkg claude");
    const got = await gather({ root, directory: path.join(root, "pkg"), settings: NONE });
    expect(labels(got.sources)).toEqual(["AGENTS.md", "pkg/AGENTS.md"]);
    expect(got.texts).toEqual(["Instructions from: AGENTS.md\nroot agents", "Instructions from: pkg/AGENTS.md\npkg agents"]);
    expect(got.texts.join("\n")).not.toContain("claude");
  });

  it("with no AGENTS.md anywhere, every CLAUDE.md on the way is included (both ancestors)", async () => {
    write("CLAUDE.md", "root claude");
    write("a/CLAUDE.md", "a claude");
    write("a/b/CONTEXT.md", "deprecated");
    const got = await gather({ root, directory: path.join(root, "a", "b"), settings: NONE });
    expect(labels(got.sources)).toEqual(["CLAUDE.md", "a/CLAUDE.md"]);
  });

  it("the first name found anywhere on the way wins: an AGENTS.md below beats the root's CLAUDE.md", async () => {
    write("CLAUDE.md", "root claude");
    write("a/AGENTS.md", "a agents");
    const got = await gather({ root, directory: path.join(root, "a"), settings: NONE });
    expect(labels(got.sources)).toEqual(["a/AGENTS.md"]);
  });

  it("nothing above the workspace root is read", async () => {
    writeFileSync(path.join(tmp, "AGENTS.md"), "above the root");
    write("README.md", "no rules");
    const got = await gather({ root, directory: root, settings: NONE });
    expect(got.sources).toEqual([]);
    rmSync(path.join(tmp, "AGENTS.md"));
  });

  it("stored team and project instructions come first, labelled", async () => {
    write("AGENTS.md", "repo");
    const got = await gather({ root, directory: root, team: "team text", project: "project text", settings: NONE });
    expect(labels(got.sources)).toEqual(["team", "project", "AGENTS.md"]);
    expect(got.texts[0]).toBe("Instructions from: team\nteam text");
    expect(got.sources.map((s) => s.kind)).toEqual(["team", "project", "file"]);
  });
});

describe("a folder that never changes (a base commit's)", () => {
  it("is read once per key and settings: the same key gives what was read, stored texts are still the step's, another key or other settings read again", async () => {
    write("AGENTS.md", "first");
    write("docs/a.md", "doc");
    const settings: InstructionSettings = { paths: ["docs/*.md"], allowUrls: false };
    const key = `fixed-${n}`;
    const first = await gather({ root, directory: root, settings, fixed: key, team: "team one" });
    expect(first.texts.join("\n")).toContain("first");
    // A base folder's files never change; were they to, the kept reading stands for the key.
    write("AGENTS.md", "second");
    const kept = await gather({ root, directory: root, settings, fixed: key, team: "team two" });
    expect(kept.texts.join("\n")).toContain("first");
    expect(kept.texts.join("\n")).toContain("team two");
    expect(labels(kept.sources)).toEqual(["team", "AGENTS.md", "docs/a.md"]);
    expect((await gather({ root, directory: root, settings, fixed: `${key}-other`, team: "team two" })).texts.join("\n")).toContain("second");
    expect((await gather({ root, directory: root, settings: NONE, fixed: key })).texts.join("\n")).toContain("second");
    expect((await gather({ root, directory: root, settings })).texts.join("\n")).toContain("second");
  });
});

describe("configured instructions", () => {
  it("globs relative to the project include each match once, sorted, after the rule files; node_modules and .git are not searched", async () => {
    write("AGENTS.md", "rules");
    write("docs/b.md", "b");
    write("docs/a.md", "a");
    write("docs/notes.txt", "not markdown");
    write("node_modules/x/docs/c.md", "dependency");
    const got = await gather({ root, directory: root, settings: { paths: ["docs/*.md", "AGENTS.md", "**/c.md"], allowUrls: false } });
    expect(labels(got.sources)).toEqual(["AGENTS.md", "docs/a.md", "docs/b.md"]);
  });

  it("an absolute path inside the project's folder names the same file in the workspace; one elsewhere, `..` and home paths are refused", async () => {
    write("rules/team.md", "team rules");
    writeFileSync(path.join(outside, "secret.md"), "outside secret");
    const projectDirectory = path.join(tmp, "the-project-folder");
    const got = await gather({
      root,
      directory: root,
      projectDirectory,
      settings: { paths: [path.join(projectDirectory, "rules", "team.md"), path.join(outside, "secret.md"), "../outside-x/secret.md", "~/AGENTS.md"], allowUrls: false },
    });
    expect(labels(got.sources)).toEqual(["rules/team.md"]);
    expect(got.sources.filter((s) => s.skipped).map((s) => s.skipped)).toEqual([
      "it is outside the project",
      "it leads outside the project",
      "paths in a home folder are not read: name files of the project",
    ]);
    expect(got.texts.join("\n")).not.toContain("outside secret");
  });
});

describe("limits and confinement", () => {
  it("a file over the per-file limit is cut with a clear note; the total limit cuts and then leaves sources out", async () => {
    write("AGENTS.md", "x".repeat(DEFAULT_MAX_FILE_BYTES + 5000));
    const big = await gather({ root, directory: root, settings: NONE });
    expect(big.sources[0]).toMatchObject({ label: "AGENTS.md", bytes: DEFAULT_MAX_FILE_BYTES, cut: true });
    expect(big.texts[0]).toContain("(cut: AGENTS.md is 69 KB; only its first 64 KB are included)");

    write("AGENTS.md", "a".repeat(600));
    write("docs/one.md", "b".repeat(600));
    write("docs/two.md", "c".repeat(600));
    const small = await gather({ root, directory: root, settings: { paths: ["docs/*.md"], allowUrls: false, maxTotalBytes: 1000 } });
    expect(small.sources.map((s) => [s.label, s.bytes, s.cut ?? false, s.skipped !== undefined])).toEqual([
      ["AGENTS.md", 600, false, false],
      ["docs/one.md", 400, true, false],
      ["docs/two.md", undefined, false, true],
    ]);
    expect(small.texts[1]).toContain("(cut: the instructions reached their total limit of 1 KB; the rest of docs/one.md is left out)");
  });

  it("a rule file that is a symlink out of the project is refused (and wins nothing for CLAUDE.md), its text never read", async () => {
    writeFileSync(path.join(outside, "secret.md"), "outside secret");
    symlinkSync(path.join(outside, "secret.md"), path.join(root, "AGENTS.md"));
    mkdirSync(path.join(root, "sub"));
    write("sub/CLAUDE.md", "claude");
    symlinkSync(outside, path.join(root, "linked"));
    const got = await gather({ root, directory: root, settings: { paths: ["linked/*.md"], allowUrls: false } });
    expect(got.sources).toEqual([
      { kind: "file", label: "AGENTS.md", skipped: "it leads outside the project (a symbolic link)" },
      { kind: "file", label: "linked/secret.md", skipped: "it leads outside the project (a symbolic link)" },
    ]);
    expect(got.texts).toEqual([]);
  });

  it("a FIFO as a rule file is refused without blocking", async () => {
    execFileSync("mkfifo", [path.join(root, "AGENTS.md")]);
    const got = await gather({ root, directory: root, settings: NONE });
    expect(got.sources).toEqual([{ kind: "file", label: "AGENTS.md", skipped: "AGENTS.md is a named pipe (FIFO): only regular files can be read or written." }]);
  });
});

describe("instructions from URLs", () => {
  it("are fetched by the server only when the operator allows them", async () => {
    const requests: string[] = [];
    const server = http.createServer((req, res) => {
      requests.push(req.url ?? "");
      res.writeHead(200, { "content-type": "text/markdown" }).end("remote rules");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rules.md`;
    try {
      const off = await gather({ root, directory: root, settings: { paths: [url], allowUrls: false } });
      expect(off.sources).toEqual([{ kind: "url", label: url, skipped: "instructions from URLs are off on this server (the operator's instructionUrls switch)" }]);
      expect(requests).toEqual([]);
      const on = await gather({ root, directory: root, settings: { paths: [url], allowUrls: true } });
      expect(on.texts).toEqual([`Instructions from: ${url}\nremote rules`]);
      expect(requests).toEqual(["/rules.md"]);
      // Within one run of the loop, each address is fetched once, not at every step.
      const urlCache = new Map();
      await gather({ root, directory: root, settings: { paths: [url], allowUrls: true }, urlCache });
      const again = await gather({ root, directory: root, settings: { paths: [url], allowUrls: true }, urlCache });
      expect(again.texts).toEqual(on.texts);
      expect(requests).toEqual(["/rules.md", "/rules.md"]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("an address that does not answer within 5 s is left out, saying so; one answering more than the limit is cut", async () => {
    const open: http.ServerResponse[] = [];
    const server = http.createServer((req, res) => {
      if (req.url === "/big.md") res.writeHead(200).end("y".repeat(3000));
      else open.push(res.writeHead(200)); // headers, then nothing
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const got = await gather({ root, directory: root, settings: { paths: [`${base}/slow.md`, `${base}/big.md`], allowUrls: true, maxFileBytes: 1024 } });
      expect(got.sources[0]).toEqual({ kind: "url", label: `${base}/slow.md`, skipped: "no answer within 5 s" });
      expect(got.sources[1]).toMatchObject({ kind: "url", label: `${base}/big.md`, bytes: 1024, cut: true });
    } finally {
      for (const res of open) res.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("nested rules", () => {
  it("reading a file appends the rule files of the folders between it and the root once per turn, not those the prompt or earlier results hold", async () => {
    write("AGENTS.md", "root");
    write("a/AGENTS.md", "a rules");
    write("a/CLAUDE.md", "a claude");
    write("a/b/CLAUDE.md", "b claude");
    write("a/b/file.ts", "code");
    write("a/b/other.ts", "code");
    write("c/AGENTS.md", "c rules");
    const step = new StepRules(root, new Set(["AGENTS.md"]), new Set());
    const first = await step.near(path.join(root, "a", "b", "file.ts"));
    expect(first.map((rule) => rule.label)).toEqual(["a/AGENTS.md", "a/b/CLAUDE.md"]);
    expect(first[0]?.text).toBe("Instructions from: a/AGENTS.md\na rules");
    expect(await step.near(path.join(root, "a", "b", "other.ts"))).toEqual([]);
    // One the permission rules deny reading is left out.
    expect((await new StepRules(root, new Set(), new Set()).near(path.join(root, "a", "b", "file.ts"), (label) => label !== "a/AGENTS.md")).map((r) => r.label)).toEqual(["a/b/CLAUDE.md"]);
    // The rule file itself is not appended to its own read.
    expect(await new StepRules(root, new Set(), new Set()).near(path.join(root, "c", "AGENTS.md"))).toEqual([]);
    // A later step sees what earlier results in view hold; a compacted result no longer counts.
    const result = (compacted?: number): WithParts[] => [
      {
        info: { id: "msg_1", sessionId: "ses_1", role: "assistant", parentId: "msg_0", providerId: "p", modelId: "m", agent: "build", path: { cwd: root, root }, cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } }, time: { created: 0 } },
        parts: [
          {
            id: "prt_1",
            sessionId: "ses_1",
            messageId: "msg_1",
            type: "tool",
            callId: "c1",
            tool: "read",
            state: { status: "completed", input: {}, output: "", title: "", metadata: { loaded: ["a/AGENTS.md", "a/b/CLAUDE.md"] }, time: { start: 0, end: 1, ...(compacted ? { compacted } : {}) } },
          },
        ],
      },
    ];
    expect(await new StepRules(root, new Set(), loadedRules(result())).near(path.join(root, "a", "b", "file.ts"))).toEqual([]);
    expect((await new StepRules(root, new Set(), loadedRules(result(5))).near(path.join(root, "a", "b", "file.ts"))).map((r) => r.label)).toEqual(["a/AGENTS.md", "a/b/CLAUDE.md"]);
  });

  it("a nested rule file that leads outside the project is never appended", async () => {
    writeFileSync(path.join(outside, "secret.md"), "outside secret");
    mkdirSync(path.join(root, "a"));
    symlinkSync(path.join(outside, "secret.md"), path.join(root, "a", "AGENTS.md"));
    write("a/file.ts", "code");
    expect(await new StepRules(root, new Set(), new Set()).near(path.join(root, "a", "file.ts"))).toEqual([]);
  });
});
