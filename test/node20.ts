/**
 * Vitest 5 declares Node ≥ 22. On Node 20 its reporter calls `Map.groupBy` and
 * `Object.groupBy` (ES2024) while printing failures; the call throws, the summary is
 * lost and a failed run exits 0. Loaded from vitest.config.ts, before any reporter runs.
 */
type GroupBy<R> = <K, T>(items: Iterable<T>, key: (item: T, index: number) => K) => R;

function groups<K, T>(items: Iterable<T>, key: (item: T, index: number) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  let index = 0;
  for (const item of items) {
    const k = key(item, index++);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

const mapStatics = Map as unknown as { groupBy?: GroupBy<Map<unknown, unknown[]>> };
if (typeof mapStatics.groupBy !== "function") {
  Object.defineProperty(Map, "groupBy", { value: groups, writable: true, configurable: true });
}

const objectStatics = Object as unknown as { groupBy?: GroupBy<Record<PropertyKey, unknown[]>> };
if (typeof objectStatics.groupBy !== "function") {
  const objectGroupBy = <T>(items: Iterable<T>, key: (item: T, index: number) => PropertyKey) => {
    const out: Record<PropertyKey, T[]> = Object.create(null);
    for (const [k, list] of groups(items, key)) out[k] = list;
    return out;
  };
  Object.defineProperty(Object, "groupBy", { value: objectGroupBy, writable: true, configurable: true });
}
