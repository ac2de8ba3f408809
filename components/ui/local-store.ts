/**
 * Values kept in this browser's localStorage and watched: `subscribe` (for
 * useSyncExternalStore) hears this tab's writes made through `write` and other tabs'
 * through the "storage" event; `write(key, undefined)` removes the key.
 */
export interface LocalStore {
  subscribe: (listener: () => void) => () => void;
  write: (key: string, value: string | undefined) => void;
}

export function localStore(): LocalStore {
  const listeners = new Set<() => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      window.addEventListener("storage", listener);
      return () => {
        listeners.delete(listener);
        window.removeEventListener("storage", listener);
      };
    },
    write(key, value) {
      if (value === undefined) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, value);
      for (const listener of [...listeners]) listener();
    },
  };
}
