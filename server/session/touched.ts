import { promises as fs } from "node:fs";
import path from "node:path";

/**
 * The files a step's own tools changed, so that its patch lists only those (SPEC §9: "a
 * step's patch, the summary and a revert concern only that session's own changes") and
 * not what another session of the same project wrote meanwhile. A step's patch is the
 * files that differ between its start and end snapshots, kept only when one of the
 * step's tool calls named it.
 *
 * Tools whose effect on files is not known from their input — `bash` (any command), `task`
 * (a subagent's tools), a tool added later — make the step keep every file that changed
 * during it: what such a command did cannot be told apart from what another session did.
 */

/** Tools that change exactly the file in their input's `filePath`. */
const WRITES_FILE_PATH = new Set(["write", "edit"]);
/** Tools that change no file of the project. */
const CHANGES_NOTHING = new Set(["read", "list", "glob", "grep", "todowrite", "todoread"]);

export class TouchedFiles {
  private unknown = false;
  private readonly paths = new Set<string>();

  /** Note one tool call of the step (as the model made it: its name and input). */
  note(tool: string, input: Record<string, unknown>): void {
    if (CHANGES_NOTHING.has(tool)) return;
    const filePath = input.filePath;
    // Any other tool, or a write without a path it could name: its effect is unknown.
    if (WRITES_FILE_PATH.has(tool) && typeof filePath === "string" && filePath !== "") this.paths.add(filePath);
    else this.unknown = true;
  }

  /** The step's calls so far, handed over and forgotten here (the next step starts afresh). */
  take(): TouchedFiles {
    const taken = new TouchedFiles();
    taken.unknown = this.unknown;
    for (const p of this.paths) taken.paths.add(p);
    this.unknown = false;
    this.paths.clear();
    return taken;
  }

  /**
   * Of `changed` (project-relative paths, `/`-separated), those the step's tools changed:
   * all of them after a tool whose effect is unknown; else those named by a `write`/`edit`
   * call — as given, or where it really is (through links inside the project).
   */
  async filter(directory: string, changed: string[]): Promise<string[]> {
    if (this.unknown) return changed;
    if (this.paths.size === 0) return [];
    const root = path.resolve(directory);
    const realRoot = await fs.realpath(root).catch(() => root /* the project is gone: only lexical paths */);
    const named = new Set<string>();
    for (const given of this.paths) {
      const absolute = path.resolve(root, given);
      named.add(toRelative(root, absolute));
      const real = await fs.realpath(absolute).catch(() => absolute /* deleted since, or never made */);
      named.add(toRelative(realRoot, real));
    }
    return changed.filter((file) => named.has(file));
  }
}

function toRelative(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join("/");
}
