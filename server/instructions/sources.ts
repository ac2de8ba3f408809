import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "../tool/files";
import { isInside } from "../inside";
import type { InstructionSource } from "../session/message";
import { type RuleRead, cutText, labelOf, present, readConfined } from "./read";
import { logger } from "../log";
import { FixedReads } from "../workspace/base-cache";

const log = logger("instructions");

/**
 * What a repository and its team tell the agent (SPEC §17), gathered for one step's system
 * prompt, in this order:
 * 1. the team's instructions, then the project's (written by owners and admins, stored in
 *    the database), labelled "team" and "project";
 * 2. the rule files, as OpenCode finds them: walking from the working directory up to the
 *    workspace root, the first name among RULE_FILES that exists anywhere on the way wins,
 *    and every file of that name on the way is included, the root's first;
 * 3. the configuration's `instructions`: paths and globs relative to the project (absolute
 *    paths inside it), each match once, in the order listed;
 * 4. the configuration's URLs, only when the operator allows them (fetched by the server,
 *    5 s at most each).
 * Every file is read confined to the workspace (read.ts). Each source is cut at
 * `maxFileBytes`, all of them together at `maxTotalBytes`, a cut saying so in the text.
 */

/** Rule file names, the first found winning (CONTEXT.md is deprecated, as in OpenCode). */
export const RULE_FILES = ["AGENTS.md", "CLAUDE.md", "CONTEXT.md"] as const;

export const DEFAULT_MAX_FILE_BYTES = 64 * 1024;
export const DEFAULT_MAX_TOTAL_BYTES = 192 * 1024;
/** How long the server waits for an instruction URL (OpenCode's limit). */
export const URL_TIMEOUT_MS = 5_000;
/** Files one configured glob includes at most. */
export const MAX_GLOB_MATCHES = 50;

export interface InstructionSettings {
  /** The configuration's `instructions`: paths, globs and URLs. */
  paths: string[];
  /** Whether URLs among `paths` are fetched (the operator's switch `instructionUrls`). */
  allowUrls: boolean;
  maxFileBytes?: number;
  maxTotalBytes?: number;
}

export const NO_INSTRUCTION_SETTINGS: InstructionSettings = { paths: [], allowUrls: false };

export interface GatherInput {
  /** The workspace root: nothing outside it is read. */
  root: string;
  /** The working directory (the root, or a folder inside it). */
  directory: string;
  /** The project's own folder: an absolute configured path inside it names the same path in the workspace. */
  projectDirectory?: string;
  /** The team's and the project's stored instructions. */
  team?: string | null;
  project?: string | null;
  settings: InstructionSettings;
  /** URLs fetched earlier in the same run of the loop: each is fetched once per run, not once per step. */
  urlCache?: UrlCache;
  /** Whether the workspace's files can be read (false: its tree could not be made; only stored instructions are used). */
  files?: boolean;
  /**
   * Set when the files under `root` never change (a base commit's folder: its key names what
   * it holds): what is read of them is kept and reused.
   */
  fixed?: string;
  signal?: AbortSignal;
}

export interface Gathered {
  /** Every source, in order, with those left out and why. */
  sources: InstructionSource[];
  /** The "Instructions from: …" blocks for the system prompt, in order. */
  texts: string[];
  /** Labels of the workspace files included (nested rules do not repeat them). */
  files: Set<string>;
}

const kb = (bytes: number) => (bytes >= 10 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024).toFixed(1).replace(/\.0$/, "")} KB`);

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** One source's block as the prompt holds it. */
export function block(label: string, text: string, note?: string): string {
  return `Instructions from: ${label}\n${text}${note ? `\n${note}` : ""}`;
}

/** The note a source cut at the per-file limit carries. */
export function cutNote(label: string, size: number, kept: number): string {
  return `(cut: ${label} is ${kb(size)}; only its first ${kb(kept)} are included)`;
}

/** Collects sources in order, holding every one to the per-file and total limits. */
class Collector {
  readonly sources: InstructionSource[] = [];
  readonly texts: string[] = [];
  readonly files = new Set<string>();
  private remaining: number;

  constructor(
    readonly maxFile: number,
    readonly maxTotal: number,
  ) {
    this.remaining = maxTotal;
  }

  skip(kind: InstructionSource["kind"], label: string, reason: string): void {
    this.sources.push({ kind, label, skipped: reason });
  }

  /** A source's text (already cut at the per-file limit when `size` says it was larger). */
  add(kind: InstructionSource["kind"], label: string, text: string, size: number): void {
    if (text.trim() === "") return;
    if (this.remaining <= 0) {
      this.skip(kind, label, `the instructions reached their total limit of ${kb(this.maxTotal)}`);
      return;
    }
    let shown = text;
    let bytes = Buffer.byteLength(shown, "utf8");
    const notes: string[] = [];
    if (size > bytes) notes.push(cutNote(label, size, bytes));
    if (bytes > this.remaining) {
      shown = cutText(Buffer.from(shown, "utf8").subarray(0, this.remaining), true);
      bytes = Buffer.byteLength(shown, "utf8");
      notes.push(`(cut: the instructions reached their total limit of ${kb(this.maxTotal)}; the rest of ${label} is left out)`);
    }
    this.remaining -= bytes;
    this.texts.push(block(label, shown, notes.join("\n") || undefined));
    this.sources.push({ kind, label, bytes, sha256: sha256(shown), ...(notes.length > 0 ? { cut: true } : {}) });
    if (kind === "file") this.files.add(label);
  }

  /** A stored text (team or project), held to the per-file limit. */
  addStored(kind: "team" | "project", text: string | null | undefined): void {
    if (!text) return;
    const bytes = Buffer.from(text, "utf8");
    this.add(kind, kind, bytes.length > this.maxFile ? cutText(bytes.subarray(0, this.maxFile), true) : text, bytes.length);
  }

  /** A file of the repository as read (a file already added is not added again). */
  addFile(found: FileFound): void {
    if ("skipped" in found) return this.skip("file", found.skipped, found.reason);
    const { label, read } = found;
    if (this.files.has(label)) return;
    if (read.kind === "missing") return;
    if (read.kind === "refused") return this.skip("file", label, read.reason);
    this.add("file", label, read.text, read.size);
  }
}

/** A file of the repository's instructions, found and read; or a configured path refused before any read. */
type FileFound = { label: string; read: RuleRead } | { skipped: string; reason: string };

/**
 * The repository's part of a step's instructions, in order: the rule files, then each
 * configured pattern's files (a path refused as it is); each file read once.
 */
async function repositoryFiles(root: string, directory: string, settings: InstructionSettings, projectDirectory: string | undefined, maxFile: number): Promise<FileFound[]> {
  const out: FileFound[] = [];
  const reads = new Map<string, RuleRead>();
  const found = async (file: string) => {
    const label = labelOf(root, file);
    let read = reads.get(label);
    if (!read) {
      read = await readConfined(root, file, label, maxFile);
      reads.set(label, read);
    }
    out.push({ label, read });
  };
  for (const file of await ruleFiles(root, directory)) await found(file);
  for (const entry of settings.paths) {
    if (isUrl(entry)) continue;
    const where = patternOf(entry, root, projectDirectory);
    if ("refused" in where) {
      out.push({ skipped: entry, reason: where.refused });
      continue;
    }
    // As OpenCode: the pattern is looked for from the working directory up to the root.
    for (const folder of foldersDown(root, directory).reverse()) {
      for (const file of await globFiles(folder, where.pattern)) await found(file);
    }
  }
  return out;
}

/**
 * What repositoryFiles read of roots that never change (a base commit's folder, keyed by
 * what it holds: GatherInput.fixed), with the settings that chose the files.
 */
const fixedReads = new FixedReads<FileFound[]>();

/** The folders from `root` down to `directory` (root first); just the root when `directory` is not inside it. */
export function foldersDown(root: string, directory: string): string[] {
  if (!isInside(root, directory)) return [root];
  const folders: string[] = [];
  for (let at = directory; ; at = path.dirname(at)) {
    folders.unshift(at);
    if (at === root || path.dirname(at) === at) break;
  }
  return folders;
}

/** The rule files of a working directory: every file of the first name found on the way up to `root`, the root's first. */
export async function ruleFiles(root: string, directory: string): Promise<string[]> {
  const folders = foldersDown(path.resolve(root), path.resolve(directory));
  for (const name of RULE_FILES) {
    const found: string[] = [];
    for (const folder of folders) {
      const file = path.join(folder, name);
      if (await present(file)) found.push(file);
    }
    if (found.length > 0) return found;
  }
  return [];
}

export const isUrl = (entry: string) => entry.startsWith("https://") || entry.startsWith("http://");

/**
 * Where a configured path is looked for: a relative pattern as given (no `..`), an
 * absolute one inside the project's folder or the workspace as the path relative to it.
 * Undefined (with why) when it points elsewhere.
 */
export function patternOf(entry: string, root: string, projectDirectory: string | undefined): { pattern: string } | { refused: string } {
  let relative = entry;
  if (entry.startsWith("~")) return { refused: "paths in a home folder are not read: name files of the project" };
  if (path.isAbsolute(entry)) {
    const base = [projectDirectory, root].find((dir) => dir !== undefined && isInside(dir, path.resolve(entry)));
    if (base === undefined) return { refused: "it is outside the project" };
    relative = path.relative(base, path.resolve(entry));
  }
  relative = relative.split(path.sep).join("/").replace(/^(\.\/)+/, "");
  if (relative === "" || relative.split("/").includes("..")) return { refused: "it leads outside the project" };
  return { pattern: relative };
}

/** Files matching a configured pattern in `folder` (not directories, never inside .git or node_modules), sorted, at most MAX_GLOB_MATCHES. */
export async function globFiles(folder: string, pattern: string): Promise<string[]> {
  const found: string[] = [];
  try {
    for await (const entry of fs.glob(pattern, { cwd: folder, withFileTypes: true, exclude: (dirent) => dirent.name === ".git" || dirent.name === "node_modules" })) {
      if (entry.isDirectory()) continue;
      found.push(path.join(entry.parentPath, entry.name));
      if (found.length >= MAX_GLOB_MATCHES) break;
    }
  } catch (error) {
    // A folder that is gone finds nothing; anything else is the server's problem.
    const code = errorCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
  return found.filter((file) => isInside(folder, file)).sort();
}

export type Fetched = { text: string; size: number } | { refused: string };
export type UrlCache = Map<string, Fetched>;

/** An instruction URL's text: at most `maxBytes` of it, within URL_TIMEOUT_MS. */
export async function fetchText(url: string, maxBytes: number, signal?: AbortSignal): Promise<Fetched> {
  const timeout = AbortSignal.timeout(URL_TIMEOUT_MS);
  let response: Response;
  try {
    response = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, headers: { accept: "text/plain, text/markdown, */*" } });
  } catch (error) {
    if (timeout.aborted) return { refused: `no answer within ${URL_TIMEOUT_MS / 1000} s` };
    return { refused: `it could not be fetched: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    return { refused: `it answered HTTP ${response.status}` };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(Buffer.from(value));
      size += value.byteLength;
      if (size > maxBytes) break;
    }
  } catch (error) {
    if (timeout.aborted) return { refused: `no answer within ${URL_TIMEOUT_MS / 1000} s` };
    return { refused: `it could not be fetched: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    await reader.cancel().catch((error: unknown) => {
      // The body is done with either way: a failure to cancel it changes nothing read.
      log.error(`could not close the answer of ${url}`, error);
    });
  }
  const all = Buffer.concat(chunks);
  const cut = all.length > maxBytes;
  // When cut, the size is "more than the limit": the rest is never downloaded.
  return { text: cutText(all.subarray(0, maxBytes), cut), size: cut ? all.length : Math.min(all.length, maxBytes) };
}

/** Every source of a step's instructions (see the module comment). */
export async function gather(input: GatherInput): Promise<Gathered> {
  const { settings } = input;
  const collect = new Collector(settings.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, settings.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES);
  collect.addStored("team", input.team);
  collect.addStored("project", input.project);
  const root = path.resolve(input.root);
  const directory = path.resolve(input.directory);
  if (input.files ?? true) {
    const read = () => repositoryFiles(root, directory, settings, input.projectDirectory, collect.maxFile);
    const key = input.fixed === undefined ? undefined : JSON.stringify([input.fixed, path.relative(root, directory), settings.paths, input.projectDirectory ?? null, collect.maxFile]);
    for (const found of await (key === undefined ? read() : fixedReads.get(key, read))) collect.addFile(found);
  }
  const urls = settings.paths.filter(isUrl);
  for (const url of urls) {
    if (!settings.allowUrls) {
      collect.skip("url", url, "instructions from URLs are off on this server (the operator's instructionUrls switch)");
      continue;
    }
    const fetched = input.urlCache?.get(url) ?? (await fetchText(url, collect.maxFile, input.signal));
    input.urlCache?.set(url, fetched);
    if ("refused" in fetched) collect.skip("url", url, fetched.refused);
    else collect.add("url", url, fetched.text, fetched.size);
  }
  return { sources: collect.sources, texts: collect.texts, files: collect.files };
}
