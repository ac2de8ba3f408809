import { vi } from "vitest";

/**
 * Every line the code under test writes through `console` (log, info, warn, error, debug),
 * collected into `lines` and still printed: a test then greps them (for a secret, say).
 * Restored by `vi.restoreAllMocks()`.
 */
export function captureConsole(lines: string[]): void {
  for (const method of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[method].bind(console);
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((arg) => (arg instanceof Error ? `${arg.stack ?? arg.message} ${String(arg.cause)}` : typeof arg === "string" ? arg : JSON.stringify(arg))).join(" "));
      original(...args);
    });
  }
}
