/**
 * Line diffs for the write and edit tools: Myers' O((N+M)·D) algorithm on the part between
 * the common prefix and suffix, and a unified diff with 3 lines of context. Very different
 * large inputs (more than MAX_EDIT_DISTANCE changes) fall back to "all removed, all added".
 */

export type DiffOp = { type: "equal" | "delete" | "insert"; line: string };

const MAX_EDIT_DISTANCE = 2000;

export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function myers(a: string[], b: string[]): DiffOp[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= Math.min(max, MAX_EDIT_DISTANCE); d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0)) ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
    if (found >= 0) break;
  }
  if (found < 0) return undefined;

  const ops: DiffOp[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d - 1] as Int32Array; // indexes k + (d - 1)
    const at = (k: number) => prev[k + d - 1] ?? 0;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ type: "equal", line: a[x - 1] as string });
      x--;
      y--;
    }
    if (x === prevX) ops.push({ type: "insert", line: b[y - 1] as string });
    else ops.push({ type: "delete", line: a[x - 1] as string });
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push({ type: "equal", line: a[x - 1] as string });
    x--;
    y--;
  }
  return ops.reverse();
}

export function diffLines(a: string[], b: string[]): DiffOp[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle = myers(midA, midB) ?? [
    ...midA.map((line): DiffOp => ({ type: "delete", line })),
    ...midB.map((line): DiffOp => ({ type: "insert", line })),
  ];
  return [
    ...a.slice(0, start).map((line): DiffOp => ({ type: "equal", line })),
    ...middle,
    ...a.slice(endA).map((line): DiffOp => ({ type: "equal", line })),
  ];
}

export interface FileDiff {
  /** Unified diff text (empty when nothing changed). */
  diff: string;
  additions: number;
  deletions: number;
}

/** A unified diff of two versions of `file` (a display name, e.g. the project-relative path). */
export function unifiedDiff(file: string, before: string, after: string, context = 3): FileDiff {
  const ops = diffLines(splitLines(before), splitLines(after));
  let additions = 0;
  let deletions = 0;
  const changed: number[] = [];
  ops.forEach((op, i) => {
    if (op.type === "insert") additions++;
    if (op.type === "delete") deletions++;
    if (op.type !== "equal") changed.push(i);
  });
  if (changed.length === 0) return { diff: "", additions, deletions };

  // Line numbers (1-based) in the old and new text before each op.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.type !== "insert") oldLine++;
    if (op.type !== "delete") newLine++;
  }

  // Group changes whose gaps are small enough to share context.
  const groups: [number, number][] = [];
  for (const i of changed) {
    const last = groups[groups.length - 1];
    if (last && i - last[1] <= 2 * context + 1) last[1] = i;
    else groups.push([i, i]);
  }

  const out = [`--- a/${file}`, `+++ b/${file}`];
  for (const [first, lastChange] of groups) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, lastChange + context);
    let oldCount = 0;
    let newCount = 0;
    const body: string[] = [];
    for (let i = from; i <= to; i++) {
      const op = ops[i] as DiffOp;
      if (op.type === "equal") {
        body.push(` ${op.line}`);
        oldCount++;
        newCount++;
      } else if (op.type === "delete") {
        body.push(`-${op.line}`);
        oldCount++;
      } else {
        body.push(`+${op.line}`);
        newCount++;
      }
    }
    const oldStart = oldCount === 0 ? (oldAt[from] ?? 1) - 1 : (oldAt[from] ?? 1);
    const newStart = newCount === 0 ? (newAt[from] ?? 1) - 1 : (newAt[from] ?? 1);
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...body);
  }
  return { diff: out.join("\n"), additions, deletions };
}
