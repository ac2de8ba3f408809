import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { read } from "./read";
import { fakeContext, SECRET, eachTempProject, type TempProject, watchAccess } from "../../test/tools";
import { ToolError } from "./tool";

const t = eachTempProject();

const ctxFor = () => fakeContext({ directory: t.project, dataDir: t.dataDir });

describe("read", () => {
  it("returns numbered lines and says when the end of the file is reached", async () => {
    await fs.writeFile(path.join(t.project, "a.txt"), "alpha\nbeta\r\ngamma\n");
    const ctx = ctxFor();
    const result = await read.execute({ filePath: "a.txt" }, ctx);
    expect(result.output).toBe("<file>\n00001| alpha\n00002| beta\n00003| gamma\n\n(End of file - total 3 lines)\n</file>");
    expect(result.title).toBe("a.txt");
    expect(result.metadata).toMatchObject({ totalLines: 3, lines: 3, truncated: false });
    expect(ctx.requests).toEqual([expect.objectContaining({ permission: "read", patterns: ["a.txt"] })]);
  });

  it("honours offset and limit and gives the offset to continue from", async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n");
    await fs.writeFile(path.join(t.project, "ten.txt"), lines);
    const result = await read.execute({ filePath: "ten.txt", offset: 3, limit: 2 }, ctxFor());
    expect(result.output).toContain("00003| line 3\n00004| line 4\n");
    expect(result.output).not.toContain("line 5");
    expect(result.output).toContain("use offset=5 to read beyond line 4; 10 lines in total");
    expect(result.metadata).toMatchObject({ truncated: true, offset: 3, lines: 2 });
  });

  it("reads 2000 lines by default and cuts lines longer than 2000 characters", async () => {
    const many = Array.from({ length: 2500 }, (_, i) => (i === 0 ? "x".repeat(3000) : `l${i + 1}`)).join("\n");
    await fs.writeFile(path.join(t.project, "big.txt"), many);
    const result = await read.execute({ filePath: "big.txt" }, ctxFor());
    expect(result.output).toContain(`00001| ${"x".repeat(2000)}... (line truncated to 2000 chars)`);
    expect(result.output).toContain("00020| l20");
    expect(result.metadata).toMatchObject({ lines: 2000, totalLines: 2500 });
    expect(result.output).toContain("use offset=2001");
  });

  it("caps a read at 50 KB and points to the next offset", async () => {
    const wide = Array.from({ length: 100 }, () => "y".repeat(1500)).join("\n");
    await fs.writeFile(path.join(t.project, "wide.txt"), wide);
    const result = await read.execute({ filePath: "wide.txt" }, ctxFor());
    expect(Buffer.byteLength(result.output)).toBeLessThan(52 * 1024);
    expect(result.output).toMatch(/Output capped at 50 KB\. File has more lines: use offset=\d+/);
  });

  it("refuses directories, binary files and offsets past the end", async () => {
    await fs.mkdir(path.join(t.project, "dir"));
    await fs.writeFile(path.join(t.project, "blob.dat2"), Buffer.from([1, 2, 0, 4, 5]));
    await fs.writeFile(path.join(t.project, "image.png"), "not really a png");
    await fs.writeFile(path.join(t.project, "short.txt"), "one\ntwo\n");
    const ctx = ctxFor();
    await expect(read.execute({ filePath: "dir" }, ctx)).rejects.toThrow(/is a directory.*list tool/);
    await expect(read.execute({ filePath: "blob.dat2" }, ctx)).rejects.toThrow("Cannot read binary file: blob.dat2");
    await expect(read.execute({ filePath: "image.png" }, ctx)).rejects.toThrow(/binary/);
    await expect(read.execute({ filePath: "short.txt", offset: 5 }, ctx)).rejects.toThrow("Offset 5 is beyond the end of short.txt (2 lines).");
  });

  it("suggests similar names when the file is missing", async () => {
    await fs.mkdir(path.join(t.project, "src"));
    await fs.writeFile(path.join(t.project, "src", "config.ts"), "");
    await fs.writeFile(path.join(t.project, "src", "unrelated.md"), "");
    const error = await read.execute({ filePath: "src/confg.ts" }, ctxFor()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe("File not found: src/confg.ts\n\nDid you mean one of these?\nsrc/config.ts");
    await expect(read.execute({ filePath: "nothing/here.ts" }, ctxFor())).rejects.toThrow(/^File not found: nothing\/here.ts$/);
  });

  it("asks read permission for .env files before opening them, and fails when refused", async () => {
    await fs.writeFile(path.join(t.project, ".env"), "KEY=1\n");
    await fs.mkdir(path.join(t.project, "config"));
    await fs.writeFile(path.join(t.project, "config", "prod.env"), "KEY=2\n");
    const refusing = fakeContext({ directory: t.project, dataDir: t.dataDir, reject: ["read"] });
    await expect(read.execute({ filePath: ".env" }, refusing)).rejects.toThrow("rejected: read");
    await expect(read.execute({ filePath: "config/prod.env" }, refusing)).rejects.toThrow("rejected: read");
    expect(refusing.requests.map((r) => r.patterns)).toEqual([[".env"], ["config/prod.env"]]);
    const ctx = ctxFor();
    expect((await read.execute({ filePath: ".env" }, ctx)).output).toContain("KEY=1");
  });

  describe("outside the project", () => {
    const cases: [string, (t: TempProject) => Promise<string>][] = [
      ["a `..` path", async () => "../outside/secret.txt"],
      ["an absolute path", async (p) => p.secret],
      [
        "a symlink inside the project",
        async (p) => {
          await fs.symlink(p.secret, path.join(p.project, "innocent.txt"));
          return "innocent.txt";
        },
      ],
      [
        "a path through a symlinked directory",
        async (p) => {
          await fs.symlink(p.outside, path.join(p.project, "docs"));
          return "docs/secret.txt";
        },
      ],
    ];
    for (const [name, make] of cases) {
      it(`asks external_directory for ${name} and never reads the file when refused`, async () => {
        const filePath = await make(t);
        const ctx = ctxFor();
        const access = watchAccess(t.outside);
        const error = await read.execute({ filePath }, ctx).catch((e: unknown) => e);
        access.restore();
        expect((error as Error).message).toMatch(/^rejected: .* is outside the project$/);
        expect((error as Error).message).not.toContain(SECRET);
        expect(ctx.requests).toEqual([expect.objectContaining({ permission: "external_directory", patterns: [t.outside] })]);
        expect(access.touched).toEqual([]);
      });
    }

    it("reads an outside file once external_directory is granted, in the sandbox, never with the server's rights", async () => {
      const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, rejectExternal: false });
      const spawn = vi.spyOn(ctx.sandbox, "spawn");
      const access = watchAccess(t.outside);
      let result;
      let binds;
      try {
        result = await read.execute({ filePath: "../outside/secret.txt" }, ctx);
      } finally {
        access.restore();
        binds = spawn.mock.calls.map(([spec]) => ({ readable: spec.readable, writable: spec.writable }));
        spawn.mockRestore();
      }
      expect(result.output).toContain(SECRET);
      // N2: the server itself never opened the file; one sandboxed process saw only it.
      expect(access.touched).toEqual([]);
      expect(binds).toEqual([{ readable: [t.secret], writable: undefined }]);
      expect(ctx.requests.map((r) => r.permission)).toEqual(["external_directory", "read"]);
      expect(ctx.requests[1]?.patterns).toEqual([t.secret]);
    });

    it("the access watcher does see the server's own reads of outside files (so the checks above are meaningful)", async () => {
      const access = watchAccess(t.outside);
      await fs.readFile(t.secret, "utf8");
      access.restore();
      expect(access.touched).toContain(t.secret);
    });
  });

  it("N5: a FIFO in the project fails at once with a clear message (no thread waits for a writer)", async () => {
    const fifo = path.join(t.project, "pipe");
    execFileSync("mkfifo", [fifo]);
    // Refused on the handle (a blocking open would never return: the test would time out).
    await expect(read.execute({ filePath: "pipe" }, ctxFor())).rejects.toThrow(/^pipe is a named pipe \(FIFO\): only regular files can be read or written\.$/);
  });

  it("N5: a socket in the project is refused", async () => {
    const net = await import("node:net");
    const socket = path.join(t.project, "sock");
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      await expect(read.execute({ filePath: "sock" }, ctxFor())).rejects.toThrow(/^sock is (a socket|not a regular file)/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("N2: refuses to read outside the project, clearly, when no sandbox can run here", async () => {
    const { Sandbox } = await import("../sandbox/sandbox");
    const { sandboxSettings } = await import("../sandbox/settings");
    const none = await Sandbox.create(sandboxSettings(undefined, {}), { PATH: "/nonexistent" });
    expect(none.available).toBe(false);
    const ctx = fakeContext({ directory: t.project, dataDir: t.dataDir, rejectExternal: false, sandbox: none });
    const access = watchAccess(t.outside);
    const error = await read.execute({ filePath: t.secret }, ctx).catch((e: unknown) => e);
    access.restore();
    expect((error as Error).message).toMatch(/^Files outside the project are only read or written inside the sandbox, and it cannot run on this server: .*bubblewrap/);
    expect(access.touched).toEqual([]);
  });
});
