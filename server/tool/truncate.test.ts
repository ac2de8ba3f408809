import { promises as fs } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempProject, type TempProject } from "../../test/tools";
import { MAX_BYTES, RETENTION_MS, outputDirectory, sweepToolOutput, truncateOutput } from "./truncate";

let t: TempProject;
let out: string;
beforeEach(async () => {
  t = await tempProject();
  out = outputDirectory(t.dataDir, "team_1", "ses_1");
});
afterEach(async () => {
  await t.cleanup();
});

const lines = (n: number, prefix = "line") => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join("\n");

describe("truncateOutput", () => {
  it("leaves output within 2000 lines and 50 KB alone", async () => {
    const text = lines(2000);
    expect(await truncateOutput(text, { outputDir: out, callId: "c1", canUseTask: false })).toEqual({ truncated: false, content: text });
    await expect(fs.readdir(out)).rejects.toThrow();
  });

  it("cuts at 2000 lines keeping the head, saves the full text and ends with the path and a hint", async () => {
    const text = lines(3000);
    const r = await truncateOutput(text, { outputDir: out, callId: "call_abc", canUseTask: false });
    if (!r.truncated) throw new Error("expected truncation");
    expect(r.outputPath).toBe(path.join(t.dataDir, "tool-output", "team_1", "ses_1", "call_abc.txt"));
    // Closed to every other user of the host at tool-output; below it, readable by the
    // sandbox's user, as which the session's own commands read it (bound into their sandbox).
    expect((await fs.stat(path.join(t.dataDir, "tool-output"))).mode & 0o777).toBe(0o700);
    expect((await fs.stat(path.dirname(out))).mode & 0o777).toBe(0o755);
    expect((await fs.stat(out)).mode & 0o777).toBe(0o755);
    expect((await fs.stat(r.outputPath)).mode & 0o777).toBe(0o644);
    expect(await fs.readFile(r.outputPath, "utf8")).toBe(text);
    expect(r.content.startsWith(`${lines(2000)}\n\n...1000 lines truncated...\n\n`)).toBe(true);
    expect(r.content).not.toContain("line 2001");
    expect(r.content.endsWith(`Full output saved to: ${r.outputPath}\nUse the grep tool to search it, or the read tool with offset/limit to view a part of it.`)).toBe(true);
  });

  it("suggests the task tool when the agent may use it", async () => {
    const r = await truncateOutput(lines(2500), { outputDir: out, callId: "c2", canUseTask: true });
    expect(r.content).toMatch(/Full output saved to: .*c2\.txt\nUse the task tool to have a subagent search or process this file/);
    expect(r.content).not.toContain("grep tool");
  });

  it("cuts at 50 KB on a line boundary", async () => {
    const text = Array.from({ length: 10 }, (_, i) => String(i).repeat(10 * 1024)).join("\n");
    const r = await truncateOutput(text, { outputDir: out, callId: "c3", canUseTask: false });
    if (!r.truncated) throw new Error("expected truncation");
    const preview = r.content.slice(0, r.content.indexOf("\n\n..."));
    expect(preview.split("\n")).toHaveLength(4); // a fifth 10 KB line would pass 51,200 bytes
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(MAX_BYTES);
    expect(r.content).toContain("...6 lines truncated...");
    expect(await fs.readFile(r.outputPath, "utf8")).toBe(text);
  });

  it("cuts a single oversized line by bytes without splitting a character", async () => {
    const text = "é".repeat(40_000); // 80,000 bytes
    const r = await truncateOutput(text, { outputDir: out, callId: "c4", canUseTask: false });
    if (!r.truncated) throw new Error("expected truncation");
    const preview = r.content.slice(0, r.content.indexOf("\n\n..."));
    expect(preview).toBe("é".repeat(MAX_BYTES / 2));
    expect(r.content).toContain(`...${80_000 - MAX_BYTES} bytes truncated...`);
  });

  it("keeps the tail when asked", async () => {
    const r = await truncateOutput(lines(3000), { outputDir: out, callId: "c5", canUseTask: false, direction: "tail" });
    expect(r.content.startsWith("...1000 lines truncated...\n\nline 1001\n")).toBe(true);
    expect(r.content).toContain("line 3000\n\nThe tool call succeeded but the output was truncated.");
  });

  it("never overwrites another saved output and names outputs without a call id uniquely", async () => {
    const a = await truncateOutput(lines(2500, "a"), { outputDir: out, callId: "same/../id", canUseTask: false });
    const b = await truncateOutput(lines(2500, "b"), { outputDir: out, callId: "same/../id", canUseTask: false });
    const c = await truncateOutput(lines(2500, "c"), { outputDir: out, canUseTask: false });
    if (!a.truncated || !b.truncated || !c.truncated) throw new Error("expected truncation");
    expect(path.dirname(a.outputPath)).toBe(out);
    expect(path.basename(a.outputPath)).toBe("same____id.txt");
    expect(b.outputPath).not.toBe(a.outputPath);
    expect(await fs.readFile(a.outputPath, "utf8")).toContain("a 1\n");
    expect(await fs.readFile(b.outputPath, "utf8")).toContain("b 1\n");
    expect(path.basename(c.outputPath)).toMatch(/^tool_[a-z0-9]+_[0-9a-f]{12}\.txt$/);
  });
});

describe("sweepToolOutput", () => {
  it("deletes only saved outputs older than 7 days, and the session folders left empty", async () => {
    const dir = out;
    const stale = outputDirectory(t.dataDir, "team_1", "ses_old");
    await fs.mkdir(dir, { recursive: true });
    await fs.mkdir(stale, { recursive: true });
    const long = (Date.now() - RETENTION_MS - 120_000) / 1000;
    await fs.writeFile(path.join(stale, "gone.txt"), "x");
    await fs.utimes(path.join(stale, "gone.txt"), long, long);
    const now = Date.now();
    const ages = { "old.txt": RETENTION_MS + 60_000, "recent.txt": RETENTION_MS - 60_000, "new.txt": 0 };
    for (const [name, age] of Object.entries(ages)) {
      await fs.writeFile(path.join(dir, name), name);
      const when = (now - age) / 1000;
      await fs.utimes(path.join(dir, name), when, when);
    }
    expect(await sweepToolOutput(t.dataDir, now)).toBe(2);
    expect((await fs.readdir(dir)).sort()).toEqual(["new.txt", "recent.txt"]);
    expect(await fs.readdir(path.join(t.dataDir, "tool-output", "team_1"))).toEqual(["ses_1"]);
    expect(await sweepToolOutput(t.dataDir, now + 2 * 60_000)).toBe(1);
    expect(await fs.readdir(dir)).toEqual(["new.txt"]);
  });

  it("does nothing when no output was ever saved", async () => {
    expect(await sweepToolOutput(path.join(t.dataDir, "nothing-here"))).toBe(0);
  });
});
