/**
 * The dashboard lists roots and children alike, in the chosen order; shown as a tree,
 * each session that has its parent among the loaded rows is placed right under it
 * (indented one level deeper), keeping the list's order among siblings. A session whose
 * parent is not loaded (filtered out, or on a later page) stays where the order puts it
 * and is marked as a child of that parent.
 */
export interface TreeItem {
  session: { id: string; parentId?: string | undefined };
}

export interface TreeRow<T extends TreeItem> {
  item: T;
  depth: number;
  /** Loaded rows placed under this one. */
  children: number;
  /** Set when the session is a child whose parent is not among the loaded rows. */
  detachedFrom: string | undefined;
}

export function arrange<T extends TreeItem>(items: readonly T[], collapsed: ReadonlySet<string> = new Set()): TreeRow<T>[] {
  const loaded = new Set(items.map((item) => item.session.id));
  const byParent = new Map<string, T[]>();
  const top: T[] = [];
  for (const item of items) {
    const parentId = item.session.parentId;
    if (parentId !== undefined && parentId !== item.session.id && loaded.has(parentId)) {
      const siblings = byParent.get(parentId) ?? [];
      siblings.push(item);
      byParent.set(parentId, siblings);
    } else {
      top.push(item);
    }
  }
  const rows: TreeRow<T>[] = [];
  const placed = new Set<string>();
  const visit = (item: T, depth: number, detachedFrom: string | undefined) => {
    // A cycle in bad data must not loop forever.
    if (placed.has(item.session.id)) return;
    placed.add(item.session.id);
    const children = byParent.get(item.session.id) ?? [];
    rows.push({ item, depth, children: children.length, detachedFrom });
    if (collapsed.has(item.session.id)) {
      for (const id of descendants(children, byParent)) placed.add(id);
      return;
    }
    for (const child of children) visit(child, depth + 1, undefined);
  };
  for (const item of top) visit(item, 0, item.session.parentId);
  // Rows only reachable through a cycle (no top-level ancestor) are still listed.
  for (const item of items) if (!placed.has(item.session.id)) visit(item, 0, item.session.parentId);
  return rows;
}

function descendants<T extends TreeItem>(start: T[], byParent: Map<string, T[]>): string[] {
  const ids: string[] = [];
  const queue = [...start];
  const seen = new Set<string>();
  while (queue.length) {
    const item = queue.shift() as T;
    if (seen.has(item.session.id)) continue;
    seen.add(item.session.id);
    ids.push(item.session.id);
    queue.push(...(byParent.get(item.session.id) ?? []));
  }
  return ids;
}
