import { promises as fs } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { edit } from "./edit";
import { fakeContext, SECRET, eachTempProject } from "../../test/tools";

const t = eachTempProject();

const ctxFor = () => fakeContext({ directory: t.project, dataDir: t.dataDir });
const file = (rel: string) => path.join(t.project, rel);

describe("edit", () => {
  it("replaces a unique exact string, asks edit permission and returns a diff", async () => {
    await fs.writeFile(file("a.ts"), "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const ctx = ctxFor();
    const result = await edit.execute({ filePath: "a.ts", oldString: "const b = 2;", newString: "const b = 20;\nconst bb = 21;" }, ctx);
    expect(await fs.readFile(file("a.ts"), "utf8")).toBe("const a = 1;\nconst b = 20;\nconst bb = 21;\nconst c = 3;\n");
    expect(result.metadata).toMatchObject({ additions: 2, deletions: 1, replacements: 1, existed: true });
    expect(result.metadata.diff).toBe(
      "--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,4 @@\n const a = 1;\n-const b = 2;\n+const b = 20;\n+const bb = 21;\n const c = 3;",
    );
    expect(ctx.requests).toEqual([expect.objectContaining({ permission: "edit", patterns: ["a.ts"] })]);
  });

  it("fails on ambiguity unless replaceAll is set", async () => {
    await fs.writeFile(file("dup.ts"), "foo();\nbar();\nfoo();\nfoo();\n");
    const ctx = ctxFor();
    await expect(edit.execute({ filePath: "dup.ts", oldString: "foo();", newString: "baz();" }, ctx)).rejects.toThrow(
      "Found 3 matches of oldString in dup.ts; give more context to make it unique, or set replaceAll to replace every occurrence.",
    );
    expect(await fs.readFile(file("dup.ts"), "utf8")).toBe("foo();\nbar();\nfoo();\nfoo();\n");
    const result = await edit.execute({ filePath: "dup.ts", oldString: "foo();", newString: "baz();", replaceAll: true }, ctx);
    expect(await fs.readFile(file("dup.ts"), "utf8")).toBe("baz();\nbar();\nbaz();\nbaz();\n");
    expect(result.metadata).toMatchObject({ replacements: 3, additions: 3, deletions: 3 });
  });

  it("fails clearly when oldString is missing, hinting at an indentation-only mismatch", async () => {
    await fs.writeFile(file("a.ts"), "function f() {\n    return 1;\n}\n");
    const ctx = ctxFor();
    await expect(edit.execute({ filePath: "a.ts", oldString: "return 2;", newString: "x" }, ctx)).rejects.toThrow(
      /^oldString was not found in a.ts\. It must match the file exactly, including whitespace and indentation\. Read the file again/,
    );
    await expect(edit.execute({ filePath: "a.ts", oldString: "function f() {\n\treturn 1;", newString: "x" }, ctx)).rejects.toThrow(
      /A match ignoring indentation exists at line 1/,
    );
  });

  it("refuses identical strings and missing files", async () => {
    const ctx = ctxFor();
    await expect(edit.execute({ filePath: "a.ts", oldString: "x", newString: "x" }, ctx)).rejects.toThrow(
      "oldString and newString are identical; there is nothing to change.",
    );
    await fs.writeFile(file("config.ts"), "");
    await expect(edit.execute({ filePath: "confg.ts", oldString: "x", newString: "y" }, ctx)).rejects.toThrow(
      "File not found: confg.ts\n\nDid you mean one of these?\nconfig.ts",
    );
  });

  it("creates a missing file from an empty oldString, but will not overwrite a non-empty one", async () => {
    const ctx = ctxFor();
    const result = await edit.execute({ filePath: "new/dir/x.md", oldString: "", newString: "# Hello\n" }, ctx);
    expect(await fs.readFile(file("new/dir/x.md"), "utf8")).toBe("# Hello\n");
    expect(result.metadata).toMatchObject({ existed: false, additions: 1, deletions: 0 });
    await expect(edit.execute({ filePath: "new/dir/x.md", oldString: "", newString: "other" }, ctx)).rejects.toThrow(/already exists and is not empty/);
  });

  it("inserts newString literally (no $& replacement patterns) and copes with CRLF files", async () => {
    await fs.writeFile(file("a.txt"), "price: X\n");
    await edit.execute({ filePath: "a.txt", oldString: "X", newString: "$& $1 $$" }, ctxFor());
    expect(await fs.readFile(file("a.txt"), "utf8")).toBe("price: $& $1 $$\n");
    await fs.writeFile(file("win.txt"), "one\r\ntwo\r\nthree\r\n");
    await edit.execute({ filePath: "win.txt", oldString: "one\ntwo", newString: "1\n2" }, ctxFor());
    expect(await fs.readFile(file("win.txt"), "utf8")).toBe("1\r\n2\r\nthree\r\n");
  });

  it("does not edit when edit permission is refused or the path leaves the project", async () => {
    await fs.writeFile(file("a.txt"), "hello\n");
    const refusing = fakeContext({ directory: t.project, dataDir: t.dataDir, reject: ["edit"] });
    await expect(edit.execute({ filePath: "a.txt", oldString: "hello", newString: "bye" }, refusing)).rejects.toThrow("rejected: edit");
    expect(await fs.readFile(file("a.txt"), "utf8")).toBe("hello\n");
    await fs.symlink(t.secret, file("link.txt"));
    for (const filePath of ["../outside/secret.txt", t.secret, "link.txt"]) {
      const ctx = ctxFor();
      await expect(edit.execute({ filePath, oldString: SECRET, newString: "pwned" }, ctx)).rejects.toThrow(/^rejected/);
      expect(ctx.requests.map((r) => r.permission)).toEqual(["external_directory"]);
    }
    expect(await fs.readFile(t.secret, "utf8")).toBe(`${SECRET}\n`);
  });
});
