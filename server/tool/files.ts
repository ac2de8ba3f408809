import type { Dirent } from "node:fs";
import { promises as fs } from "node:fs";
import path from "node:path";
import { errorCode } from "../errno";

/** File-system helpers shared by the file tools: error codes, binary detection, walking. */

export { errorCode };

/** Directories no search or listing descends into (build output, dependencies, VCS). */
export const IGNORED_DIRECTORIES: ReadonlySet<string> = new Set([
  "node_modules",
  ".git",
  ".hg",
  ".svn",
  "dist",
  "build",
  "out",
  ".next",
  ".nuxt",
  ".turbo",
  ".cache",
  ".parcel-cache",
  "coverage",
  ".nyc_output",
  "target",
  "vendor",
  "__pycache__",
  ".pytest_cache",
  ".mypy_cache",
  ".venv",
  "venv",
  ".idea",
  ".vscode",
  ".zig-cache",
  "zig-out",
  ".gradle",
]);

const BINARY_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    ".zip .tar .gz .tgz .bz2 .xz .7z .rar .jar .war .class .exe .dll .so .dylib .o .a .lib .obj .bin .dat " +
    ".wasm .pyc .pyo .png .jpg .jpeg .gif .bmp .ico .webp .tiff .avif .heic .psd .mp3 .mp4 .mov .avi .mkv " +
    ".wav .flac .ogg .webm .pdf .doc .docx .xls .xlsx .ppt .pptx .odt .ods .sqlite .db .woff .woff2 .ttf .otf .eot"
  ).split(" "),
);

/** Whether a sample of a file's first bytes looks binary (NUL bytes or mostly control characters). */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    // Control characters other than tab, LF, vertical tab, form feed, CR and ESC.
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 11 && byte !== 12 && byte !== 13 && byte !== 27) control++;
  }
  return control / sample.length > 0.3;
}

/** Whether an open file is binary, judged by its extension and its first 4 KB (read from offset 0; the handle's position is not moved). */
export async function isBinaryHandle(handle: fs.FileHandle, name: string): Promise<boolean> {
  if (hasBinaryExtension(name)) return true;
  const buffer = Buffer.alloc(4096);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  return looksBinary(buffer.subarray(0, bytesRead));
}

/** Whether a file's name says it is binary (an image, an archive…). */
export function hasBinaryExtension(name: string): boolean {
  return BINARY_EXTENSIONS.has(path.extname(name).toLowerCase());
}

/** `.env`-style files, whose content is sensitive: basename `.env` or ending in `.env`. */
export function isEnvFile(file: string): boolean {
  return path.basename(file).endsWith(".env");
}

export interface WalkEntry {
  /** Absolute path. */
  path: string;
  /** Path relative to the walk root, with `/` separators. */
  rel: string;
  name: string;
  /** Depth below the root (entries of the root have depth 1). */
  depth: number;
  kind: "file" | "directory" | "symlink" | "other";
}

function kindOf(entry: Dirent): WalkEntry["kind"] {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory()) return "directory";
  if (entry.isFile()) return "file";
  return "other";
}

export interface WalkOptions {
  /** Directory names not to descend into (default IGNORED_DIRECTORIES). */
  ignoredDirectories?: ReadonlySet<string>;
  /** Skip an entry (and, for a directory, everything below it). */
  skip?: (entry: WalkEntry) => boolean;
  signal?: AbortSignal;
}

/**
 * Breadth-first walk below `root`, entries sorted by name within a directory. Symlinks are
 * reported but never followed, so a walk cannot leave the tree or loop. Unreadable
 * directories (EACCES, or removed meanwhile) are skipped.
 */
export async function* walk(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const ignored = options.ignoredDirectories ?? IGNORED_DIRECTORIES;
  let level: { abs: string; rel: string }[] = [{ abs: root, rel: "" }];
  let depth = 1;
  while (level.length > 0) {
    const next: { abs: string; rel: string }[] = [];
    for (const dir of level) {
      options.signal?.throwIfAborted();
      let entries: Dirent[];
      try {
        entries = await fs.readdir(dir.abs, { withFileTypes: true });
      } catch (error) {
        const code = errorCode(error);
        if (code === "EACCES" || code === "EPERM" || code === "ENOENT" || code === "ENOTDIR") continue;
        throw error;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const dirent of entries) {
        const entry: WalkEntry = {
          path: path.join(dir.abs, dirent.name),
          rel: dir.rel === "" ? dirent.name : `${dir.rel}/${dirent.name}`,
          name: dirent.name,
          depth,
          kind: kindOf(dirent),
        };
        if (entry.kind === "directory" && ignored.has(entry.name)) continue;
        if (options.skip?.(entry)) continue;
        yield entry;
        if (entry.kind === "directory") next.push({ abs: entry.path, rel: entry.rel });
      }
    }
    level = next;
    depth++;
  }
}

/** Cut a line to `max` characters, saying so. */
export function cutLine(line: string, max: number): string {
  return line.length > max ? `${line.slice(0, max)}... (line truncated to ${max} chars)` : line;
}
