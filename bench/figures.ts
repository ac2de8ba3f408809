/** Figures the benchmarks print: median, p95 and max of timed samples, and PASS/FAIL. */

export interface Stats {
  median: number;
  p95: number;
  max: number;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { median: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? Number.NaN };
}

export const ms = (value: number, width = 8) => value.toFixed(2).padStart(width);
export const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");

/** How long `work` took, in ms. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
}

/** The times, in ms, of `runs` calls of `work` after `warmup` untimed ones. */
export async function samples(runs: number, warmup: number, work: () => unknown): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await timed(async () => work()));
  return times;
}

/**
 * Runs a benchmark's `main` as the process: its exit code is 0 when main passes (or
 * returns nothing), 1 when it fails, the code main returns; 2 when main throws.
 */
export function runBench(main: () => Promise<boolean | number | void>): void {
  main().then(
    (outcome) => process.exit(typeof outcome === "number" ? outcome : outcome === false ? 1 : 0),
    (error: unknown) => {
      console.error("bench failed:", error);
      process.exit(2);
    },
  );
}

/** A positive number given as `--name N` on the command line (whole numbers only with `integer`), else `fallback`. */
export function numberArg(name: string, fallback: number, options: { integer?: boolean } = {}): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : Number.NaN;
  const valid = options.integer ? Number.isInteger(value) : Number.isFinite(value);
  return valid && value > 0 ? value : fallback;
}

/** The p-th percentile of sorted samples (nearest rank below). */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
