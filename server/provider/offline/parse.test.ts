import { describe, expect, it } from "vitest";
import { describeAll, parseMessage } from "./parse";

describe("offline model: reading the user's message", () => {
  it.each([
    ["list files", [[{ kind: "list", path: "." }]]],
    ["list", [[{ kind: "list", path: "." }]]],
    ["Could you list the files in src?", [[{ kind: "list", path: "src" }]]],
    ["read README.md", [[{ kind: "read", filePath: "README.md" }]]],
    ["please read `src/index.ts`.", [[{ kind: "read", filePath: "src/index.ts" }]]],
    ["grep TODO", [[{ kind: "grep", pattern: "TODO" }]]],
    ['search for "foo bar" in src', [[{ kind: "grep", pattern: "foo bar", path: "src" }]]],
    ["glob **/*.ts", [[{ kind: "glob", pattern: "**/*.ts" }]]],
    ["find *.ts", [[{ kind: "glob", pattern: "*.ts" }]]],
    ["find config.json", [[{ kind: "glob", pattern: "**/config.json" }]]],
    ["write notes.txt: hello world", [[{ kind: "write", filePath: "notes.txt", content: "hello world\n" }]]],
    ["write notes.txt:\n```\nline 1\nline 2\n```", [[{ kind: "write", filePath: "notes.txt", content: "line 1\nline 2\n" }]]],
    ['write "hi there" to a.txt', [[{ kind: "write", filePath: "a.txt", content: "hi there\n" }]]],
    ["edit notes.txt replace hello with goodbye", [[{ kind: "edit", filePath: "notes.txt", oldString: "hello", newString: "goodbye" }]]],
    ['replace "a b" with "c with d" in x.md', [[{ kind: "edit", filePath: "x.md", oldString: "a b", newString: "c with d" }]]],
    ["run ls -la", [[{ kind: "bash", command: "ls -la" }]]],
    ["bash echo hi && echo there", [[{ kind: "bash", command: "echo hi && echo there" }]]],
    ["`git status`", [[{ kind: "bash", command: "git status" }]]],
    ["todo write tests, fix the bug and ship", [[{ kind: "todo", items: ["write tests", "fix the bug", "ship"] }]]],
    ["plan", [[{ kind: "todo", items: [] }]]],
    ["task find the config loader", [[{ kind: "task", description: "find the config loader", prompt: "find the config loader" }]]],
    [
      "use a subagent to list files and read README.md",
      [[{ kind: "task", description: "list files and read README.md", prompt: "list files and read README.md" }]],
    ],
  ])("%j", (text, steps) => {
    expect(parseMessage(text).steps).toEqual(steps);
  });

  it('puts requests joined by "and" or commas into one step', () => {
    expect(parseMessage("list files and read README.md").steps).toEqual([
      [
        { kind: "list", path: "." },
        { kind: "read", filePath: "README.md" },
      ],
    ]);
    expect(parseMessage("read `a.ts`, grep TODO and find *.ts").steps[0]?.map((r) => r.kind)).toEqual(["read", "grep", "glob"]);
    expect(parseMessage("1. list files\n2. read README.md\n3. run git status").steps[0]?.map((r) => r.kind)).toEqual([
      "list",
      "read",
      "bash",
    ]);
  });

  it('starts a new step at "then" / "after that"', () => {
    expect(parseMessage("read a.txt then write b.txt: hello and goodbye").steps).toEqual([
      [{ kind: "read", filePath: "a.txt" }],
      [{ kind: "write", filePath: "b.txt", content: "hello and goodbye\n" }],
    ]);
    expect(parseMessage("list src. After that, read src/a.ts and grep foo").steps).toEqual([
      [{ kind: "list", path: "src" }],
      [
        { kind: "read", filePath: "src/a.ts" },
        { kind: "grep", pattern: "foo" },
      ],
    ]);
  });

  it("lets a command, file content or subagent prompt run to the next step, not to the next 'and'", () => {
    expect(parseMessage("run ls -la and cat x").steps).toEqual([[{ kind: "bash", command: "ls -la and cat x" }]]);
    // A backticked command is delimited, so the rest is parsed.
    expect(parseMessage("run `ls -la` and read x.txt").steps).toEqual([
      [
        { kind: "bash", command: "ls -la" },
        { kind: "read", filePath: "x.txt" },
      ],
    ]);
    expect(parseMessage("write a.md:\n```\nlist and read\n```\nand read a.md").steps).toEqual([
      [
        { kind: "write", filePath: "a.md", content: "list and read\n" },
        { kind: "read", filePath: "a.md" },
      ],
    ]);
  });

  it("recognises failure switches and strips them from the request", () => {
    expect(parseMessage("fail with 429").failure).toEqual({ kind: "status", status: 429, times: undefined });
    expect(parseMessage("fail once with 500").failure).toEqual({ kind: "status", status: 500, times: 1 });
    expect(parseMessage("fail with a 503 twice").failure).toEqual({ kind: "status", status: 503, times: 2 });
    expect(parseMessage("fail 3 times with 429").failure).toEqual({ kind: "status", status: 429, times: 3 });
    expect(parseMessage("hang").failure).toEqual({ kind: "hang", times: undefined });
    expect(parseMessage("drop the connection once").failure).toEqual({ kind: "drop", times: 1 });
    expect(parseMessage("context overflow").failure).toEqual({ kind: "overflow", times: undefined });
    const both = parseMessage("fail once with 500 and list files");
    expect(both.failure).toEqual({ kind: "status", status: 500, times: 1 });
    expect(both.steps).toEqual([[{ kind: "list", path: "." }]]);
    // Inside code, a switch is just text.
    expect(parseMessage("write a.txt: `hang`").failure).toBeUndefined();
  });

  it("recognises style switches without mistaking them for a write", () => {
    expect(parseMessage("write a long answer")).toMatchObject({ steps: [], long: true, veryLong: false, slow: false });
    expect(parseMessage("write a very long answer")).toMatchObject({ steps: [], long: false, veryLong: true, slow: false });
    expect(parseMessage("Give me a very long essay and stream slowly")).toMatchObject({ steps: [], long: false, veryLong: true, slow: true });
    expect(parseMessage("stream slowly")).toMatchObject({ steps: [], long: false, slow: true });
    expect(parseMessage("fill the context and list files")).toMatchObject({ fillContext: true, steps: [[{ kind: "list" }]] });
  });

  it("hands jobs to several subagents in one step", () => {
    const two = [
      { kind: "task", description: "list files", prompt: "list files" },
      { kind: "task", description: "read README.md", prompt: "read README.md" },
    ];
    expect(parseMessage("in parallel, ask two subagents to list files and read README.md").steps).toEqual([two]);
    expect(parseMessage("use a subagent to list files, use a subagent to read README.md").steps).toEqual([two]);
    expect(parseMessage("use a subagent to list files then use a subagent to read README.md").steps).toEqual([[two[0]], [two[1]]]);
  });

  it("finds nothing in small talk", () => {
    expect(parseMessage("hello there, how are you?").steps).toEqual([]);
    expect(parseMessage("").steps).toEqual([]);
  });
});

describe("describeAll", () => {
  it("lists up to three requests one by one and counts many by kind", () => {
    const reads = ["a.ts", "b.ts", "c.ts"].map((filePath) => ({ kind: "read" as const, filePath }));
    expect(describeAll(reads)).toEqual(["read `a.ts`", "read `b.ts`", "read `c.ts`"]);
    const jobs = Array.from({ length: 10 }, (_, i) => ({ kind: "task" as const, description: `job ${i}`, prompt: `do job ${i}` }));
    expect(describeAll([...jobs, { kind: "bash", command: "ls" }])).toEqual(["hand 10 jobs to subagents", "run `ls`"]);
  });
});
