import { describe, expect, it } from "vitest";
import { formatBytes, outcomeText, parleyCode, splitPatch, statusBadge, workState } from "./view";

describe("workState", () => {
  it("puts a failed workspace first, then uncommitted changes, then how far the commits went", () => {
    expect(workState({ state: "failed", uncommitted: true, commits: "pushed" }).key).toBe("failed");
    expect(workState({ state: "ready", uncommitted: true, commits: "pushed" }).key).toBe("uncommitted");
    expect(workState({ state: "ready", uncommitted: false, commits: "unpushed" }).key).toBe("unpushed");
    expect(workState({ state: "ready", uncommitted: false, commits: "pushed" }).key).toBe("pushed");
    expect(workState({ state: "removed", uncommitted: false, commits: "merged" }).key).toBe("merged");
    expect(workState({ state: "pending", uncommitted: false, commits: "none" })).toMatchObject({ key: "none", label: "no changes" });
  });
});

describe("statusBadge", () => {
  it("reads a status's commits as lists do: none without commits, merged before pushed before unpushed", () => {
    const base = { state: "ready" as const, uncommitted: false, pushed: false, merged: false };
    expect(statusBadge({ ...base, commits: 0, pushed: true })).toEqual({ state: "ready", uncommitted: false, commits: "none" });
    expect(statusBadge({ ...base, commits: 2 }).commits).toBe("unpushed");
    expect(statusBadge({ ...base, commits: 2, pushed: true }).commits).toBe("pushed");
    expect(statusBadge({ ...base, commits: 2, merged: true, pushed: true }).commits).toBe("merged");
  });
});

const PATCH = [
  "diff --git a/src/app.ts b/src/app.ts",
  "index 1111111..2222222 100644",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1 +1 @@",
  "-old",
  "+new",
  'diff --git "a/we ird\\"name" "b/we ird\\"name"',
  "new file mode 100644",
  "--- /dev/null",
  '+++ "b/we ird\\"name"',
  "@@ -0,0 +1 @@",
  "+x",
  "diff --git a/app.ts b/app.ts",
  "deleted file mode 100644",
  "--- a/app.ts",
  "+++ /dev/null",
  "@@ -1 +0,0 @@",
  "-gone",
  "",
].join("\n");

describe("splitPatch", () => {
  it("cuts a diff into one piece per listed file, each from its own header", () => {
    const pieces = splitPatch(PATCH, ["app.ts", "src/app.ts", 'we ird\\"name']);
    expect([...pieces.keys()]).toEqual(["src/app.ts", 'we ird\\"name', "app.ts"]);
    expect(pieces.get("src/app.ts")).toBe("diff --git a/src/app.ts b/src/app.ts\nindex 1111111..2222222 100644\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1 +1 @@\n-old\n+new\n");
    // "app.ts" is not mistaken for the end of "src/app.ts"'s header.
    expect(pieces.get("app.ts")).toContain("-gone");
    expect(pieces.get("app.ts")).not.toContain("+new");
  });

  it("leaves out a piece of an unlisted file and gives nothing for a file cut off the text", () => {
    const pieces = splitPatch(PATCH, ["src/app.ts", "missing.ts"]);
    expect([...pieces.keys()]).toEqual(["src/app.ts"]);
    expect(splitPatch("", ["src/app.ts"]).size).toBe(0);
  });
});

describe("outcomeText", () => {
  it("says a conflict changed nothing and counts its files", () => {
    expect(outcomeText("merge", { kind: "conflict", files: ["a", "b"] }, "main")).toBe("Merging would conflict in 2 files: nothing was changed.");
    expect(outcomeText("update", { kind: "conflict", files: ["a"] }, "main")).toBe("Updating would conflict in 1 file: nothing was changed.");
  });

  it("names the target branch of a merge or an update", () => {
    expect(outcomeText("merge", { kind: "merged" }, "main")).toBe("Merged into main.");
    expect(outcomeText("merge", { kind: "up-to-date" }, "main")).toBe("main already has this branch's commits.");
    expect(outcomeText("update", { kind: "up-to-date", changedFiles: [] }, "trunk")).toBe("Already up to date with trunk.");
    expect(outcomeText("update", { kind: "updated", changedFiles: ["x"] }, "trunk")).toBe("Brought in trunk's new commits (1 file changed).");
  });
});

describe("formatBytes", () => {
  it("counts in powers of 1024 with one decimal below ten", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(812)).toBe("812 B");
    expect(formatBytes(4300)).toBe("4.2 KB");
    expect(formatBytes(1024)).toBe("1 KB");
    expect(formatBytes(17 * 1024 * 1024 + 5)).toBe("17 MB");
    expect(formatBytes(-1)).toBe("—");
  });
});

describe("parleyCode", () => {
  it("reads the domain code a tRPC error carries, and nothing from anything else", () => {
    expect(parleyCode({ message: "busy", data: { code: "CONFLICT", parleyCode: "BUSY" } })).toBe("BUSY");
    expect(parleyCode({ data: { code: "NOT_FOUND" } })).toBeUndefined();
    expect(parleyCode({ data: { parleyCode: 7 } })).toBeUndefined();
    expect(parleyCode(new Error("plain"))).toBeUndefined();
    expect(parleyCode(null)).toBeUndefined();
  });
});
