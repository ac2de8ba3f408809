import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TouchedFiles } from "./touched";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "parley-touched-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("TouchedFiles", () => {
  it("keeps the changed files a write or edit named (relative, absolute, or through a link inside the project)", async () => {
    mkdirSync(path.join(dir, "src"));
    writeFileSync(path.join(dir, "src", "b.ts"), "b");
    symlinkSync("src", path.join(dir, "alias"));
    const touched = new TouchedFiles();
    touched.note("read", { filePath: "other.txt" });
    touched.note("write", { filePath: "a.txt" });
    touched.note("edit", { filePath: path.join(dir, "notes", "c.md") });
    touched.note("edit", { filePath: "alias/b.ts" });
    const changed = ["a.txt", "hr/salaries.txt", "notes/c.md", "other.txt", "src/b.ts"];
    expect(await touched.filter(dir, changed)).toEqual(["a.txt", "notes/c.md", "src/b.ts"]);
  });

  it("keeps every changed file after a tool whose effect is unknown (bash, task, a write without a path), none after read-only tools", async () => {
    const changed = ["a.txt", "hr/salaries.txt"];
    for (const [tool, input] of [["bash", { command: "make" }], ["task", { prompt: "x" }], ["write", { text: "x" }], ["custom", {}]] as const) {
      const touched = new TouchedFiles();
      touched.note(tool, input);
      expect(await touched.filter(dir, changed)).toEqual(changed);
    }
    const reading = new TouchedFiles();
    reading.note("grep", { pattern: "x" });
    reading.note("list", {});
    expect(await reading.filter(dir, changed)).toEqual([]);
  });

  it("hands its calls over and starts afresh (one step's calls never count for the next)", async () => {
    const touched = new TouchedFiles();
    touched.note("bash", { command: "make" });
    const taken = touched.take();
    expect(await taken.filter(dir, ["a.txt"])).toEqual(["a.txt"]);
    expect(await touched.filter(dir, ["a.txt"])).toEqual([]);
  });
});
