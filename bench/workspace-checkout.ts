/**
 * npx tsx bench/workspace-checkout.ts [--runs 10]
 *
 * What a new session workspace costs on this machine (server/workspace/repo.ts), on a
 * generated project of 10,000 files in 100 directories, 100 MB in all (10 KB each, seeded
 * PRNG), committed and packed as a clone would be:
 *
 * 1. `createWorkTree`: a new working tree checked out at the project's head on a new
 *    branch of the store. Target p95 ≤ 1,000 ms.
 * 2. The first `workTreeTree` of a new working tree (reported, no target).
 * 3. `removeWorkTree` of a working tree (reported, no target).
 *
 * Exits 0 when the target PASSes, 1 otherwise. The temporary directory is removed at the
 * end, on failure and on Ctrl-C.
 */
import { execFileSync } from "node:child_process";
import { promises as fs, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { seededRandom } from "../lib/random";
import { ProjectGit } from "../server/project/git";
import { WorkspaceRepo, removeWorkTree } from "../server/workspace/repo";
import { type Stats, ms, numberArg, stats, timed, verdict } from "./figures";

const FILES = 10_000;
const DIRECTORIES = 100;
const FILE_BYTES = 10 * 1024;
const TARGET_MS = 1_000;
const WORDS = ["const", "value", "return", "function", "project", "session", "workspace", "parley", "export", "import", "await", "result"];

const log = (line = "") => process.stdout.write(`${line}\n`);
const random = seededRandom(0x5eed_0031);

function content(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = Array.from({ length: 8 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join("\n")}\n`.slice(0, bytes);
}

function git(cwd: string, ...args: string[]): string {
  const env = { NODE_ENV: process.env.NODE_ENV, PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" };
  return execFileSync("git", ["-c", "gc.auto=0", ...args], { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

async function generate(project: string): Promise<void> {
  for (let d = 0; d < DIRECTORIES; d++) await fs.mkdir(path.join(project, `dir${String(d).padStart(3, "0")}`), { recursive: true });
  for (let i = 0; i < FILES; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, FILES - i) }, (_, k) => {
        const n = i + k;
        return fs.writeFile(path.join(project, `dir${String(n % DIRECTORIES).padStart(3, "0")}`, `file${String(n).padStart(5, "0")}.ts`), content(FILE_BYTES));
      }),
    );
  }
  git(project, "init", "-q", "-b", "main");
  git(project, "add", "-A");
  git(project, "commit", "-q", "-m", "Generated");
  git(project, "repack", "-a", "-d", "-q");
}

function row(name: string, s: Stats, target?: number): string {
  const ok = target === undefined ? "" : `  target p95 ≤ ${target.toLocaleString("en")}  ${verdict(s.p95 <= target)}`;
  return `   ${name.padEnd(28)} ${ms(s.median)} ${ms(s.p95)} ${ms(s.max)}${ok}`;
}

async function main(): Promise<number> {
  const runs = numberArg("runs", 10, { integer: true });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "parley-bench-workspace-"));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.once("SIGINT", () => {
    cleanup();
    process.exit(130);
  });
  try {
    const project = path.join(dir, "project");
    await generate(project);
    const base = git(project, "rev-parse", "HEAD").trim();
    const store = path.join(dir, "data", "workspaces", "p", "store.git");
    const repo = new WorkspaceRepo(new ProjectGit(path.join(dir, "data")));
    await repo.ensureStore(store, path.join(project, ".git"));
    const create: number[] = [];
    const firstTree: number[] = [];
    const remove: number[] = [];
    for (let i = 0; i < runs; i++) {
      const workTree = path.join(dir, "data", "workspaces", "p", `w${i}`);
      create.push(await timed(() => repo.createWorkTree(store, workTree, { branch: `parley/bench-${i}`, base, workspace: `w${i}` })));
      firstTree.push(await timed(() => repo.workTreeTree(store, workTree, `w${i}`)));
      remove.push(await timed(() => removeWorkTree(workTree)));
    }
    const created = stats(create);
    log(`Workspace checkout — Node ${process.version}, git ${git(dir, "--version").trim().replace(/^git version /, "")}, ${os.cpus().length} CPUs, ${FILES.toLocaleString("en")} files / ${((FILES * FILE_BYTES) / 1048576).toFixed(0)} MB, ${runs} runs`);
    log(`   ${"".padEnd(28)} ${"median".padStart(8)} ${"p95".padStart(8)} ${"max".padStart(8)}  (ms)`);
    log(row("new working tree", created, TARGET_MS));
    log(row("its first tree", stats(firstTree)));
    log(row("removing it", stats(remove)));
    const pass = created.p95 <= TARGET_MS;
    log(pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
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
