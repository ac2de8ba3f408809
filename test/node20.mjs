/**
 * Vitest 5 declares Node ≥ 22. On Node 20 its reporter calls `Map.groupBy` and
 * `Object.groupBy` (ES2024) while printing failures; the call throws, the summary is
 * lost and the failures are hard to read. Loaded from vitest.config.ts, before any
 * reporter runs. Plain JavaScript so the config can import it with its extension.
 */

/**
 * @template K, T
 * @param {Iterable<T>} items
 * @param {(item: T, index: number) => K} key
 * @returns {Map<K, T[]>}
 */
function groups(items, key) {
  const out = new Map();
  let index = 0;
  for (const item of items) {
    const k = key(item, index++);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

if (typeof Reflect.get(Map, "groupBy") !== "function") {
  Object.defineProperty(Map, "groupBy", { value: groups, writable: true, configurable: true });
}

if (typeof Reflect.get(Object, "groupBy") !== "function") {
  /**
   * @template T
   * @param {Iterable<T>} items
   * @param {(item: T, index: number) => PropertyKey} key
   */
  const objectGroupBy = (items, key) => {
    /** @type {Record<PropertyKey, T[]>} */
    const out = Object.create(null);
    for (const [k, list] of groups(items, key)) out[k] = list;
    return out;
  };
  Object.defineProperty(Object, "groupBy", { value: objectGroupBy, writable: true, configurable: true });
}
