/**
 * The generated project of the benchmarks that need a big one (bench:snapshot,
 * bench:workspace): 10,000 files in 100 directories, 100 MB in all (10 KB of words each),
 * from a seeded PRNG, so every run and every machine works on the same files.
 */
import { promises as fs } from "node:fs";
import path from "node:path";

export const FILES = 10_000;
export const DIRECTORIES = 100;
export const FILE_BYTES = 10 * 1024;
export const SEED = 0x5eed_0011;

const WORDS = ["const", "value", "return", "function", "project", "session", "snapshot", "parley", "export", "import", "await", "result"];

/** `bytes` of lines of words drawn from `random`. */
export function content(random: () => number, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = Array.from({ length: 8 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`.slice(0, bytes);
}

/** The path of file `i`, relative to the project. */
export const fileName = (i: number) => path.join(`dir${String(i % DIRECTORIES).padStart(3, "0")}`, `file${String(i).padStart(5, "0")}.ts`);

/** Writes the project's files into `project` (made when missing); returns their total size in bytes. */
export async function generate(project: string, random: () => number): Promise<number> {
  for (let d = 0; d < DIRECTORIES; d++) await fs.mkdir(path.join(project, `dir${String(d).padStart(3, "0")}`), { recursive: true });
  let bytes = 0;
  const batch = 200;
  for (let i = 0; i < FILES; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, FILES - i) }, (_, k) => {
        const text = content(random, FILE_BYTES);
        bytes += text.length;
        return fs.writeFile(path.join(project, fileName(i + k)), text);
      }),
    );
  }
  return bytes;
}
