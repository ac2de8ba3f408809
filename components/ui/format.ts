/** Number and time formatting shared by the list, the session page and the part renderers. */

export interface TokenCounts {
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

export function totalTokens(tokens: TokenCounts): number {
  return tokens.input + tokens.output + tokens.reasoning + tokens.cache.read + tokens.cache.write;
}

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

export function formatCount(n: number): string {
  return n < 1000 ? String(n) : compact.format(n);
}

export function formatTokens(n: number): string {
  return `${formatCount(n)} ${n === 1 ? "token" : "tokens"}`;
}

/** Dollars: cents from $1 up, up to four decimals below ($0.0123), two significant digits for tiny costs. */
export function formatCost(cost: number): string {
  if (cost === 0) return "$0.00";
  if (cost >= 1) return `$${cost.toFixed(2)}`;
  if (cost >= 0.0001) return `$${cost.toFixed(4).replace(/(\.\d\d\d*?)0+$/, "$1")}`;
  return `$${Number(cost.toPrecision(2)).toFixed(20).replace(/0+$/, "")}`;
}

export function formatDuration(ms: number): string {
  if (ms < 0) return "0 ms";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds % 60);
  if (minutes < 60) return rest ? `${minutes} min ${rest} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600_000],
  ["month", 30 * 24 * 3600_000],
  ["week", 7 * 24 * 3600_000],
  ["day", 24 * 3600_000],
  ["hour", 3600_000],
  ["minute", 60_000],
];

export function formatRelative(time: number, now: number): string {
  const diff = time - now;
  if (Math.abs(diff) < 45_000) return "just now";
  for (const [unit, size] of UNITS) {
    if (Math.abs(diff) >= size) return relative.format(Math.round(diff / size), unit);
  }
  return relative.format(Math.round(diff / 60_000), "minute");
}

// One formatter for all calls: toLocaleString builds a new one each time, which is slow.
const dateTime = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });

export function formatDateTime(time: number): string {
  return dateTime.format(new Date(time));
}

/** The first characters of a hash or snapshot id, like git's short form. */
export function shortHash(hash: string): string {
  return hash.length > 10 ? hash.slice(0, 10) : hash;
}
