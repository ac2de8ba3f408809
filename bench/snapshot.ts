/**
 * npm run bench:snapshot
 *
 * What snapshots (server/snapshot) cost on this machine, on a generated project of
 * 10,000 files in 100 directories, 100 MB in all (10 KB each, seeded PRNG), with the
 * system git — the same calls the processor makes at each step's start and end, and
 * that a revert makes, in this process (a snapshot is a server-side step of the agent's
 * turn, no HTTP is involved):
 *
 * 1. The first snapshot (every file hashed once; reported, no target).
 * 2. A snapshot with nothing changed: 30 runs. Target p95 < 100 ms.
 * 3. A snapshot after 10 files changed: 20 runs, each after rewriting 10 random files.
 *    Target p95 < 200 ms.
 * 4. A revert of 100 files: 10 runs, each after rewriting 100 random files and taking a
 *    snapshot; timed is what `Session.revert` does with the files — restore them from the
 *    snapshot before, snapshot the result, make the diff. Target p95 < 1,000 ms.
 *
 * Exits 0 when every target PASSes, 1 otherwise. The temporary directory is removed at
 * the end, on failure and on Ctrl-C.
 */
import { promises as fs, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { seededRandom } from "../lib/random";
import { Snapshots } from "../server/snapshot/snapshot";
import { type Stats, ms, stats, timed, verdict } from "./figures";
import { DIRECTORIES, FILES, SEED, fileName, generate } from "./generated-project";

const UNCHANGED_RUNS = 30;
const CHANGED_RUNS = 20;
const CHANGED_FILES = 10;
const REVERT_RUNS = 10;
const REVERT_FILES = 100;
const TARGETS = { unchanged: 100, changed: 200, revert: 1_000 };

const log = (line = "") => process.stdout.write(`${line}\n`);
const random = seededRandom(SEED);
function pick(count: number): string[] {
  const chosen = new Set<string>();
  while (chosen.size < count) chosen.add(fileName(Math.floor(random() * FILES)));
  return [...chosen];
}

async function rewrite(project: string, files: string[]): Promise<void> {
  await Promise.all(files.map((file) => fs.appendFile(path.join(project, file), `// changed ${random()}\n`)));
}

function row(name: string, s: Stats, target?: number): string {
  const ok = target === undefined ? "" : `  target p95 < ${target.toLocaleString("en")}  ${verdict(s.p95 < target)}`;
  return `   ${name.padEnd(36)} ${ms(s.median)} ${ms(s.p95)} ${ms(s.max)}${ok}`;
}

async function main(): Promise<number> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "parley-bench-snapshot-"));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.once("SIGINT", () => {
    cleanup();
    process.exit(130);
  });
  try {
    const project = { id: "prj_bench", directory: path.join(dir, "project") };
    const snapshots = new Snapshots({ root: path.join(dir, "data", "snapshot") });
    log(`Node ${process.version}, ${os.cpus().length} cores; ${snapshots.describe()}`);
    if (!snapshots.available) return 1;
    const t0 = performance.now();
    const bytes = await generate(project.directory, random);
    log(`Project: ${FILES.toLocaleString("en")} files in ${DIRECTORIES} directories, ${(bytes / 1e6).toFixed(1)} MB (generated in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    log("What is timed: Snapshots.track / restore / diffText, as the processor and Session.revert call them (git started by the process helper, as in the server).\n");

    const first = await timed(() => snapshots.track(project));
    log(`1. First snapshot (every file hashed): ${first.toFixed(0)} ms\n`);

    log(`   ${"case (ms)".padEnd(36)} ${"median".padStart(8)} ${"p95".padStart(8)} ${"max".padStart(8)}`);
    const unchanged: number[] = [];
    for (let i = 0; i < UNCHANGED_RUNS; i++) unchanged.push(await timed(() => snapshots.track(project)));
    const a = stats(unchanged);
    log(row(`2. snapshot, nothing changed (${UNCHANGED_RUNS} runs)`, a, TARGETS.unchanged));

    const changed: number[] = [];
    for (let i = 0; i < CHANGED_RUNS; i++) {
      await rewrite(project.directory, pick(CHANGED_FILES));
      changed.push(await timed(() => snapshots.track(project)));
    }
    const b = stats(changed);
    log(row(`3. snapshot, ${CHANGED_FILES} files changed (${CHANGED_RUNS} runs)`, b, TARGETS.changed));

    const reverts: number[] = [];
    for (let i = 0; i < REVERT_RUNS; i++) {
      const before = await snapshots.track(project);
      const files = pick(REVERT_FILES);
      await rewrite(project.directory, files);
      const after = await snapshots.track(project);
      reverts.push(
        await timed(async () => {
          await snapshots.restore(project, before, files);
          const now = await snapshots.track(project);
          await snapshots.diffText(project, now, after);
        }),
      );
      const back = await snapshots.track(project);
      if (back !== before) throw new Error("the revert did not bring the project back to its snapshot");
    }
    const c = stats(reverts);
    log(row(`4. revert of ${REVERT_FILES} files (${REVERT_RUNS} runs)`, c, TARGETS.revert));
    const ok = a.p95 < TARGETS.unchanged && b.p95 < TARGETS.changed && c.p95 < TARGETS.revert;
    log(`\nSnapshots and revert within their targets: ${verdict(ok)}`);
    return ok ? 0 : 1;
  } finally {
    cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
