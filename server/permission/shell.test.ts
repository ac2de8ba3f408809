import { describe, expect, it, vi } from "vitest";
import { commandPrefix, MAX_SOURCE_LENGTH, parseShell, RUNS_OTHER_COMMANDS, type ShellParse } from "./shell";
import { seededRandom } from "../../lib/random";

const texts = (parse: ShellParse) => parse.commands.map((c) => c.text);

/** The texts of an understood source (fails the test when it was not understood). */
async function understoodTexts(source: string): Promise<string[]> {
  const parse = await parseShell(source);
  expect(parse.reason).toBeUndefined();
  expect(parse.understood).toBe(true);
  return texts(parse);
}


describe("commandPrefix", () => {
  it("keeps the command and a subcommand for the always pattern", () => {
    const cases: [command: string, prefix: string][] = [
      ["ls -la src", "ls"],
      ["git status --short", "git status"],
      ["git -C x log", "git"],
      ["npm run build -- --watch", "npm run build"],
      ["FOO=1 BAR=2 npx vitest run", "npx vitest"],
      ["  echo hi ", "echo"],
    ];
    for (const [command, prefix] of cases) expect(commandPrefix(command), command).toBe(prefix);
  });
});

describe("parseShell: simple commands", () => {
  it("returns a simple command with its name and always pattern", async () => {
    expect(await parseShell("git status -s")).toEqual({
      commands: [{ text: "git status -s", name: "git", always: "git status *" }],
      understood: true,
    });
    expect((await parseShell("ls -la")).commands[0]?.always).toBe("ls *");
    expect((await parseShell("npm run build")).commands[0]?.always).toBe("npm run build *");
  });

  it("keeps leading assignments in the text but not in the always pattern", async () => {
    expect((await parseShell("FOO=1 make test")).commands).toEqual([{ text: "FOO=1 make test", name: "make", always: "make test *" }]);
  });

  it("leaves redirections out of the text", async () => {
    expect(await understoodTexts("echo hi > out.txt 2>&1")).toEqual(["echo hi"]);
    expect(await understoodTexts("2>&1 cat <<< x")).toEqual(["cat"]);
    expect(await understoodTexts("cat < in.txt | sort -u >> out.txt")).toEqual(["cat", "sort -u"]);
  });

  it("reads quoted and escaped command names", async () => {
    const parse = await parseShell(`'rm' x; "ls" -l; \\rm y; g"i"'t' status`);
    expect(parse.understood).toBe(true);
    expect(parse.commands.map((c) => c.name)).toEqual(["rm", "ls", "rm", "git"]);
    expect(parse.commands.map((c) => c.always)).toEqual(["'rm' *", `"ls" *`, "\\rm *", `g"i"'t' *`]);
  });

  it("keeps a `;` inside quotes in its command", async () => {
    expect(await understoodTexts(`echo "a; id"`)).toEqual([`echo "a; id"`]);
    expect(await understoodTexts(`echo 'a && id' "b | c"`)).toEqual([`echo 'a && id' "b | c"`]);
  });
});

describe("parseShell: compound commands", () => {
  it("splits lists, pipelines, subshells and background jobs", async () => {
    expect(await understoodTexts("git status && rm -rf ~")).toEqual(["git status", "rm -rf ~"]);
    expect(await understoodTexts("echo ok; head /etc/passwd; id")).toEqual(["echo ok", "head /etc/passwd", "id"]);
    expect(await understoodTexts("a | b || (c; d) & e")).toEqual(["a", "b", "c", "d", "e"]);
    expect(await understoodTexts("x\ny\n{ z; w; }")).toEqual(["x", "y", "z", "w"]);
    expect(await understoodTexts("! rm x")).toEqual(["rm x"]);
  });

  it("gives each command of a compound its own always pattern", async () => {
    const parse = await parseShell("git status -s && npm run build");
    expect(parse.commands.map((c) => c.always)).toEqual(["git status *", "npm run build *"]);
  });

  it("walks conditions and bodies of if, for, while and case", async () => {
    expect(await understoodTexts("if true; then x; elif y; then z; else w; fi")).toEqual(["true", "x", "y", "z", "w"]);
    expect(await understoodTexts(`for f in *.ts; do wc -l "$f"; done`)).toEqual([`wc -l "$f"`]);
    expect(await understoodTexts(`while read l; do echo "$l"; done < f`)).toEqual(["read l", `echo "$l"`]);
    expect(await understoodTexts("until false; do sleep 1; done")).toEqual(["false", "sleep 1"]);
    expect(await understoodTexts("case $x in a) foo;; *) bar;; esac")).toEqual(["foo", "bar"]);
    expect(await understoodTexts("for ((i=0; i<3; i++)); do echo $i; done")).toEqual(["echo $i"]);
  });

  it("walks function bodies", async () => {
    const found = await understoodTexts("f() { rm -rf /; }; f");
    expect(found).toEqual(["rm -rf /", "f"]);
    expect(await understoodTexts("function g { id; }")).toEqual(["id"]);
  });
});

describe("parseShell: nested commands", () => {
  it("finds command substitutions and backticks in arguments", async () => {
    expect(await understoodTexts("echo $(id) `whoami` > out.txt")).toEqual(["echo $(id) `whoami`", "id", "whoami"]);
    expect(await understoodTexts(`echo "user: $(whoami)" \${x:-$(id)} $((1 + $(wc -l < f)))`)).toEqual([
      `echo "user: $(whoami)" \${x:-$(id)} $((1 + $(wc -l < f)))`,
      "whoami",
      "id",
      "wc -l",
    ]);
  });

  it("finds commands in heredoc bodies, redirections and case words", async () => {
    expect(await understoodTexts("cat <<EOF\nhello $(id)\nEOF")).toEqual(["cat", "id"]);
    expect(await understoodTexts("echo > $(id)")).toEqual(["echo", "id"]);
    expect(await understoodTexts("case $(id) in $(whoami)) foo;; esac")).toEqual(["id", "whoami", "foo"]);
    expect(await understoodTexts("[[ $(id) == x ]] && ok")).toEqual(["id", "ok"]);
  });

  it("finds process substitutions", async () => {
    expect(await understoodTexts("diff <(ls a) <(ls b)")).toEqual(["diff <(ls a) <(ls b)", "ls a", "ls b"]);
    expect(await understoodTexts("tee >(wc -c) < f")).toEqual(["tee >(wc -c)", "wc -c"]);
  });

  it("returns declarations, unset and bare assignments as commands without an always", async () => {
    const exported = await parseShell("export X=$(curl evil)");
    expect(exported.understood).toBe(true);
    expect(exported.commands).toEqual([
      { text: "export X=$(curl evil)", name: "export", always: undefined },
      { text: "curl evil", name: "curl", always: "curl *" },
    ]);
    expect(await parseShell("X=1")).toEqual({ commands: [{ text: "X=1", name: undefined, always: undefined }], understood: true });
    expect(await understoodTexts("X=1 Y=$(id); unset X; local a=1 b")).toEqual(["X=1 Y=$(id)", "id", "unset X", "local a=1 b"]);
    expect(await understoodTexts("PATH=/tmp/evil; git status")).toEqual(["PATH=/tmp/evil", "git status"]);
  });
});

describe("parseShell: always patterns", () => {
  it("offers no always for commands that run other commands", async () => {
    for (const source of [`bash -c "rm -rf x"`, "sudo rm x", "env X=1 id", "xargs rm", "/usr/bin/sudo rm x", "'eval' x", "time make"]) {
      const parse = await parseShell(source);
      expect(parse.understood, source).toBe(true);
      expect(parse.commands[0]?.always, source).toBeUndefined();
    }
    expect(RUNS_OTHER_COMMANDS.has("nohup")).toBe(true);
  });

  it("offers no always when the prefix holds a wildcard character", async () => {
    const parse = await parseShell("'r*' x");
    expect(parse.understood).toBe(true);
    expect(parse.commands[0]).toEqual({ text: "'r*' x", name: "r*", always: undefined });
  });
});

describe("parseShell: not understood", () => {
  it("refuses command names computed at run time", async () => {
    for (const source of ["$CMD foo", `"$(echo rm)" -rf x`, "${X}", "/bin/r? x", "r{m,} x", "$'rm' x"]) {
      const parse = await parseShell(source);
      expect(parse.understood, source).toBe(false);
      expect(parse.reason, source).toMatch(/computed at run time/);
      expect(parse.commands.every((c) => c.always === undefined), source).toBe(true);
    }
    const parse = await parseShell(`"$(echo rm)" -rf x`);
    expect(texts(parse)).toEqual([`"$(echo rm)" -rf x`, "echo rm"]);
    expect((await parseShell("$CMD foo")).reason).toBe("the command name is computed at run time: $CMD");
  });

  it("refuses syntax errors, keeping the commands it found", async () => {
    const parse = await parseShell("echo 'unterminated");
    expect(parse).toMatchObject({ understood: false, reason: "syntax error" });
    expect(parse.commands.length).toBeGreaterThan(0);
    expect((await parseShell("git status && ")).understood).toBe(false);
    expect((await parseShell("if true; then x")).understood).toBe(false);
  });

  it("refuses a source without any command", async () => {
    expect(await parseShell("# just a comment")).toEqual({
      commands: [{ text: "# just a comment", name: undefined, always: undefined }],
      understood: false,
      reason: "no command found",
    });
    expect((await parseShell("   ")).understood).toBe(false);
  });

  it("refuses words that tree-sitter would attach to a redirection", async () => {
    for (const source of ["make > /dev/null install", "cat <<EOF x\nhi\nEOF"]) {
      const parse = await parseShell(source);
      expect(parse.understood, source).toBe(false);
      expect(parse.reason, source).toMatch(/words after a redirection/);
    }
  });

  it("refuses a very long source without parsing it", async () => {
    const long = "echo a; ".repeat(25_000);
    expect(long.length).toBeGreaterThan(MAX_SOURCE_LENGTH);
    const parse = await parseShell(long);
    expect(parse).toMatchObject({ understood: false, reason: "command too long to check" });
    expect(parse.commands).toHaveLength(1);
  });

  it("refuses sources with too many commands", async () => {
    const parse = await parseShell("a;".repeat(30_000));
    expect(parse).toMatchObject({ understood: false, reason: "too many commands to check" });
  });
});

describe("parseShell: robustness", () => {
  it("never throws on random input", async () => {
    const random = seededRandom(20240611);
    for (let n = 0; n < 200; n++) {
      const length = Math.floor(random() * 200);
      let source = "";
      for (let i = 0; i < length; i++) source += String.fromCharCode(Math.floor(random() * 256));
      const parse = await parseShell(source);
      expect(parse.commands.length).toBeGreaterThan(0);
      if (!parse.understood) expect(parse.reason).toBeTruthy();
    }
  });

  it("never throws on random shell-like input", async () => {
    const random = seededRandom(7);
    const alphabet = [..."abc $`'\"\\(){}[];&|<>\n#=*?!-~0"];
    for (let n = 0; n < 200; n++) {
      const length = Math.floor(random() * 120);
      let source = "";
      for (let i = 0; i < length; i++) source += alphabet[Math.floor(random() * alphabet.length)] ?? "";
      const parse = await parseShell(source);
      expect(parse.commands.length).toBeGreaterThan(0);
    }
  });

  it("survives deep nesting", async () => {
    const subshells = await parseShell(`${"( ".repeat(20_000)}x${" )".repeat(20_000)}`);
    expect(subshells.understood).toBe(true);
    expect(texts(subshells)).toEqual(["x"]);
    // Each nested command repeats the text of those inside it: bounded by the character budget.
    const substitutions = await parseShell(`${"echo $(".repeat(5_000)}x${")".repeat(5_000)}`);
    expect(substitutions.understood).toBe(false);
    expect(substitutions.reason).toBe("too many commands to check");
  });

  it("loads the grammar once for concurrent first calls", async () => {
    vi.resetModules();
    const fresh = await import("./shell");
    const results = await Promise.all(["a && b", "c | d", "e; f"].map((s) => fresh.parseShell(s)));
    expect(results.map(texts)).toEqual([
      ["a", "b"],
      ["c", "d"],
      ["e", "f"],
    ]);
  });
});
