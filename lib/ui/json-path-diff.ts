import { diffArrays } from 'diff';

export type PathChangeKind = 'added' | 'removed' | 'changed';

/** One difference between two JSON values, at a path such as `items[2].name` or `headers["x-key"]`. */
export interface PathChange {
  path: string;
  kind: PathChangeKind;
  /** The value before (absent for `added`). */
  before?: unknown;
  /** The value after (absent for `removed`). */
  after?: unknown;
}

export interface JsonPathDiff {
  changes: PathChange[];
  /** Changes beyond `limit` that were counted but not listed. */
  more: number;
}

/** Arrays longer than this are compared position by position, not aligned by jsdiff. */
const ALIGN_LIMIT = 2_000;
/** How long jsdiff may take to align one array (ms) before position by position is used. */
const ALIGN_TIMEOUT_MS = 100;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `a.b`, `a[3]`, `a["x-y"]`: the path as a person reads it. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (IDENTIFIER.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

/** Whether two JSON values are equal (object key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  }
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
    );
  }
  return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
}

/** A stable text of a JSON value (keys sorted), so that jsdiff can align array items by equality. */
function itemKey(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

class Collector {
  readonly changes: PathChange[] = [];
  more = 0;
  constructor(private readonly limit: number) {}
  add(change: PathChange) {
    if (this.changes.length < this.limit) this.changes.push(change);
    else this.more += 1;
  }
}

/**
 * Which paths of a JSON value were added, removed or changed between `before` and `after`: a walk
 * over both values; array items are aligned with jsdiff's `diffArrays` (so an item inserted at the
 * start is one addition, not a change of every later position), and a removed item facing an
 * added one is compared field by field. At most `limit` changes are listed; `more` counts the rest.
 * @example jsonPathDiff({ a: 1, b: [1] }, { a: 2, b: [1, 2] }).changes
 *   // [{ path: 'a', kind: 'changed', before: 1, after: 2 }, { path: 'b[1]', kind: 'added', after: 2 }]
 */
export function jsonPathDiff(before: unknown, after: unknown, limit = 500): JsonPathDiff {
  const out = new Collector(limit);
  walk(before, after, '', out);
  return { changes: out.changes, more: out.more };
}

function walk(a: unknown, b: unknown, path: string, out: Collector): void {
  if (sameJson(a, b)) return;
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const at = childPath(path, key);
      if (!Object.hasOwn(a, key)) out.add({ path: at, kind: 'added', after: b[key] });
      else if (!Object.hasOwn(b, key)) out.add({ path: at, kind: 'removed', before: a[key] });
      else walk(a[key], b[key], at, out);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    walkArrays(a, b, path, out);
    return;
  }
  out.add({ path, kind: 'changed', before: a, after: b });
}

function walkArrays(a: unknown[], b: unknown[], path: string, out: Collector): void {
  const aligned =
    a.length + b.length <= ALIGN_LIMIT
      ? diffArrays(a.map(itemKey), b.map(itemKey), { timeout: ALIGN_TIMEOUT_MS })
      : undefined;
  if (!aligned) {
    const length = Math.max(a.length, b.length);
    for (let i = 0; i < length; i++) {
      if (i >= b.length) out.add({ path: childPath(path, i), kind: 'removed', before: a[i] });
      else if (i >= a.length) out.add({ path: childPath(path, i), kind: 'added', after: b[i] });
      else walk(a[i], b[i], childPath(path, i), out);
    }
    return;
  }
  let ia = 0;
  let ib = 0;
  for (let c = 0; c < aligned.length; c++) {
    const change = aligned[c]!;
    if (!change.added && !change.removed) {
      ia += change.count;
      ib += change.count;
      continue;
    }
    if (change.removed) {
      const next = aligned[c + 1];
      const added = next?.added ? next.count : 0;
      const paired = Math.min(change.count, added);
      // An item replaced in place: show what changed inside it.
      for (let i = 0; i < paired; i++) walk(a[ia + i], b[ib + i], childPath(path, ib + i), out);
      for (let i = paired; i < change.count; i++)
        out.add({ path: childPath(path, ia + i), kind: 'removed', before: a[ia + i] });
      for (let i = paired; i < added; i++) out.add({ path: childPath(path, ib + i), kind: 'added', after: b[ib + i] });
      ia += change.count;
      ib += added;
      if (added > 0) c += 1;
      continue;
    }
    for (let i = 0; i < change.count; i++) out.add({ path: childPath(path, ib + i), kind: 'added', after: b[ib + i] });
    ib += change.count;
  }
}
