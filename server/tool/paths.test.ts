import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { realLocation, resolvePath } from "./paths";
import { isInside } from "../inside";
import { fakeContext, eachTempProject } from "../../test/tools";

const t = eachTempProject();

describe("isInside", () => {
  it("accepts the directory itself and its descendants, including names starting with '..'", () => {
    const inside = ["/p", "/p/a/b", "/p/..hidden"];
    const outside = ["/", "/p2", "/other/p"];
    expect(inside.map((p) => isInside("/p", p))).toEqual([true, true, true]);
    expect(outside.map((p) => isInside("/p", p))).toEqual([false, false, false]);
  });
});

describe("resolvePath", () => {
  it("resolves relative paths inside the project without asking", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const r = await resolvePath(ctx, "src/../a.txt");
    expect(r).toEqual({ absolute: path.join(t.project, "a.txt"), real: path.join(t.project, "a.txt"), relative: "a.txt", external: false });
    expect((await resolvePath(ctx, undefined)).relative).toBe(".");
    expect((await resolvePath(ctx, path.join(t.project, "x/y"))).relative).toBe("x/y");
    expect(ctx.requests).toEqual([]);
  });

  it("asks external_directory for `..` escapes and fails with the rejection", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    await expect(resolvePath(ctx, "../outside/secret.txt")).rejects.toThrow(/rejected/);
    expect(ctx.requests).toEqual([
      expect.objectContaining({ permission: "external_directory", patterns: [t.outside], always: [t.outside] }),
    ]);
  });

  it("asks for absolute paths outside the project, naming their directory", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    await expect(resolvePath(ctx, "/etc/passwd")).rejects.toThrow(/rejected/);
    expect(ctx.requests[0]?.patterns).toEqual(["/etc"]);
    await expect(resolvePath(ctx, "/etc", { kind: "directory" })).rejects.toThrow(/rejected/);
    expect(ctx.requests[1]?.patterns).toEqual(["/etc"]);
  });

  it("asks for a symlinked file or directory that points outside", async () => {
    await fs.symlink(t.secret, path.join(t.project, "link.txt"));
    await fs.symlink(t.outside, path.join(t.project, "linkdir"));
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    await expect(resolvePath(ctx, "link.txt")).rejects.toThrow(/rejected/);
    await expect(resolvePath(ctx, "linkdir/secret.txt")).rejects.toThrow(/rejected/);
    await expect(resolvePath(ctx, "linkdir/new/deeper.txt")).rejects.toThrow(/rejected/);
    await expect(resolvePath(ctx, "linkdir", { kind: "directory" })).rejects.toThrow(/rejected/);
    expect(ctx.requests.map((r) => r.patterns[0])).toEqual([t.outside, t.outside, path.join(t.outside, "new"), t.outside]);
  });

  it("follows a dangling symlink by hand, so a write through it cannot escape", async () => {
    await fs.symlink(path.join(t.outside, "not-yet.txt"), path.join(t.project, "dangling"));
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    await expect(resolvePath(ctx, "dangling")).rejects.toThrow(/rejected/);
    expect(await realLocation(path.join(t.project, "dangling"))).toBe(path.join(t.outside, "not-yet.txt"));
  });

  it("lets symlinks that stay inside the project through", async () => {
    await fs.mkdir(path.join(t.project, "real"));
    await fs.symlink(path.join(t.project, "real"), path.join(t.project, "alias"));
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const r = await resolvePath(ctx, "alias/file.txt");
    expect(r.external).toBe(false);
    expect(r.real).toBe(path.join(t.project, "real", "file.txt"));
    expect(ctx.requests).toEqual([]);
  });

  it("refuses, without asking, paths in the data directory or another team's project, also through symlinks", async () => {
    const other = path.join(t.outside, "other-team");
    await fs.mkdir(path.join(t.dataDir, "pg"), { recursive: true });
    await fs.mkdir(other);
    await fs.symlink(path.join(t.dataDir, "pg"), path.join(t.project, "db"));
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, forbidden: [other], rejectExternal: false });
    for (const target of [path.join(t.dataDir, "pg", "postmaster.pid"), path.join(other, "secret.txt"), "db/postmaster.pid", `../outside/other-team`]) {
      await expect(resolvePath(ctx, target)).rejects.toThrow(/Access denied: .* no tool may reach/);
    }
    await expect(resolvePath(ctx, t.dataDir, { kind: "directory" })).rejects.toThrow(/Access denied/);
    expect(ctx.requests).toEqual([]);
  });

  it("reads the session's own saved outputs without a question, but not another session's", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir });
    const own = await resolvePath(ctx, path.join(ctx.outputDir, "call_1.txt"));
    expect(own).toMatchObject({ external: true, real: path.join(ctx.outputDir, "call_1.txt") });
    await expect(resolvePath(ctx, path.join(path.dirname(ctx.outputDir), "ses_other", "call_1.txt"))).rejects.toThrow(/Access denied/);
    expect(ctx.requests).toEqual([]);
  });

  it("offers no 'always' for a directory whose name holds a wildcard character", async () => {
    await fs.mkdir(path.join(t.outside, "a*b"));
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, rejectExternal: false });
    await resolvePath(ctx, path.join(t.outside, "a*b", "f.txt"));
    expect(ctx.requests[0]).toMatchObject({ patterns: [path.join(t.outside, "a*b")], always: [] });
  });

  it("returns the outside path when permission is granted", async () => {
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, rejectExternal: false });
    const r = await resolvePath(ctx, t.secret);
    expect(r).toMatchObject({ absolute: t.secret, relative: t.secret, external: true });
  });

  it("N3: refuses, without asking, a folder that holds the data directory or another team's project, and the host's own places", async () => {
    const other = path.join(t.outside, "other-team");
    await fs.mkdir(other);
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, forbidden: [other], rejectExternal: false });
    const around = [
      ["..", "a folder that holds Parley's data"],
      [path.dirname(t.dataDir), "a folder that holds Parley's data"],
      [t.outside, "a folder that holds Parley's data or another team's project"],
      ["/", "a folder that holds a part of the server itself"],
      ["/proc/self/status", "a part of the server itself"],
      ["/sys/kernel", "a part of the server itself"],
      ["/dev/null", "a part of the server itself"],
      [path.join(process.cwd(), "package.json"), "a part of the server itself"],
    ];
    for (const [target, why] of around) {
      await expect(resolvePath(ctx, target, { kind: "directory" }), target).rejects.toThrow(`in a place no tool may reach (${why}`);
    }
    // Through a symlink inside the project too.
    await fs.symlink(path.dirname(t.dataDir), path.join(t.project, "up"));
    await expect(resolvePath(ctx, "up", { kind: "directory" })).rejects.toThrow(/a folder that holds Parley's data/);
    expect(ctx.requests).toEqual([]);
  });

  it("N2: with the built-in rules alone, a folder outside is refused without a question; a policy 'allow' lets it through", async () => {
    const closed = fakeContext({ directory: t.project, dataDir: t.dataDir, external: "default" });
    await expect(resolvePath(closed, t.secret)).rejects.toThrow(/^Access denied: .*secret\.txt is outside this project\. .*no rule allows/);
    await expect(resolvePath(closed, "/etc/passwd")).rejects.toThrow(/^Access denied/);
    expect(closed.requests).toEqual([]);
    const open = fakeContext({ directory: t.project, dataDir: t.dataDir, external: "allow", rejectExternal: false });
    expect(await resolvePath(open, t.secret)).toMatchObject({ real: t.secret, external: true });
    // The policy decides first; then the request goes through every layer (ctx.ask: the session's rules may still deny).
    expect(open.requests).toEqual([expect.objectContaining({ permission: "external_directory", patterns: [t.outside] })]);
  });
});
