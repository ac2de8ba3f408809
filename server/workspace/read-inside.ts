import { constants, promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { errorCode } from "../errno";
import { DIRECTORY_FLAGS } from "../sandbox/owner";

/**
 * A small file below `dir` (`names`: its folders and its name), read without following a
 * link and without blocking (a FIFO is opened non-blocking and refused as not a file):
 * `null` when nothing is there (missing, or a file where a folder should be on the way);
 * `undefined` when something is there that is not a plain file of at most `maxBytes`
 * (a link, a folder, a device, a FIFO, a larger file).
 */
export async function readInside(dir: string, names: string[], options: { maxBytes?: number } = {}): Promise<Buffer | null | undefined> {
  const maxBytes = options.maxBytes ?? 65_536;
  const handles: FileHandle[] = [];
  try {
    handles.push(await fs.open(await fs.realpath(dir), DIRECTORY_FLAGS));
    for (const [i, name] of names.entries()) {
      const parent = handles[handles.length - 1];
      if (!parent) return undefined;
      const last = i === names.length - 1;
      try {
        handles.push(await fs.open(`/proc/self/fd/${parent.fd}/${name}`, last ? constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK : DIRECTORY_FLAGS));
      } catch (error) {
        const c = errorCode(error);
        if (c === "ENOENT" || c === "ENOTDIR") return null;
        // A link on the way, or as the file.
        if (c === "ELOOP") return undefined;
        throw error;
      }
    }
    const file = handles[handles.length - 1];
    if (!file) return undefined;
    const stat = await file.stat();
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    return await file.readFile();
  } finally {
    for (const handle of handles) await handle.close();
  }
}
