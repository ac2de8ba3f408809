import { logger } from "../log";

const log = logger("session");

/**
 * Work a session starts in the background and nobody awaits (title generation, prune).
 * A failure is logged with what failed, never thrown at nobody; `settled` lets tests and
 * shutdown wait for what is still running.
 */

const running = new Map<string, Set<Promise<void>>>();
/** What each running task is (for a report of what is still running). */
const names = new WeakMap<Promise<void>, string>();

export function run(sessionId: string, what: string, work: () => Promise<unknown>): void {
  const set = running.get(sessionId) ?? new Set<Promise<void>>();
  running.set(sessionId, set);
  const task: Promise<void> = Promise.resolve()
    .then(work)
    .then(
      () => undefined,
      (error: unknown) => log.error(`${what} of ${sessionId} failed`, error),
    );
  set.add(task);
  names.set(task, what);
  void task.finally(() => {
    set.delete(task);
    if (set.size === 0 && running.get(sessionId) === set) running.delete(sessionId);
  });
}

/** Resolves when the background work of a session (or of every session) has ended. */
export async function settled(sessionId?: string): Promise<void> {
  for (;;) {
    const tasks = sessionId === undefined ? [...running.values()].flatMap((s) => [...s]) : [...(running.get(sessionId) ?? [])];
    if (tasks.length === 0) return;
    await Promise.allSettled(tasks);
  }
}

/** What a session's background work still running is, by name ("title generation"…). */
export function pending(sessionId: string): string[] {
  return [...(running.get(sessionId) ?? [])].map((task) => names.get(task) ?? "work");
}
