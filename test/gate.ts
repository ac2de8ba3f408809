/** A gate a test opens when it chooses: `opened` resolves once `release()` is called (again: nothing more). */
export function gate(): { opened: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (release = resolve));
  return { opened, release };
}

type AsyncMethod = (...args: never[]) => Promise<unknown>;

/**
 * Holds every call of `target[method]` (a prototype's, say) until `release()`, then lets
 * it run as written: `calls` counts the calls held so far, `restore()` puts the method back.
 */
export function holdCalls<K extends PropertyKey, T extends Record<K, AsyncMethod>>(target: T, method: K) {
  const original = target[method];
  const { opened, release } = gate();
  const held = {
    calls: 0,
    release,
    restore: () => {
      target[method] = original;
    },
  };
  async function waiting(this: unknown, ...args: Parameters<T[K]>) {
    held.calls += 1;
    await opened;
    return original.apply(this, args);
  }
  target[method] = waiting as T[K];
  return held;
}
