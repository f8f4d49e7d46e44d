import { REDACTED } from './redact-shapes';

/** What `transformTree` does with the strings and keys of a value. */
export interface TreeRules {
  /** The new text of a string value. */
  text(value: string): string;
  /** The new text of an object's key; the key as it is when absent. */
  key?(key: string): string;
  /** Whether an object's entry under `key` is a secret: its whole value is replaced. */
  isSecretKey?(key: string): boolean;
  /** Told every value replaced as a secret (before it is replaced). */
  secret?(value: unknown): void;
}

/**
 * How deep a copy goes: below, a subtree is walked (its secrets found) but replaced by a note.
 * What is stored is serialized by `JSON.stringify`, which recurses and overflows the stack a few
 * thousand levels down; and no one reads a value 256 levels deep in a trace.
 */
export const MAX_COPY_DEPTH = 256;
/** What stands for a subtree nested deeper than MAX_COPY_DEPTH in a copy. */
export const CUT_DEEPER = `[nested deeper than ${MAX_COPY_DEPTH} levels: not kept]`;

/** One object or array being copied: its entries are visited in order, `i` the next one. */
interface Frame {
  src: Record<string, unknown> | unknown[];
  /** Null below MAX_COPY_DEPTH: the entries are walked, not copied. */
  out: Record<string, unknown> | unknown[] | null;
  /** An object's keys; null for an array (its indices). */
  keys: string[] | null;
  i: number;
  /** Dotted paths (split) still to match below this node; empty when none. */
  paths: readonly (readonly string[])[];
  depth: number;
}

/** Past this depth, objects are tracked on the way down so that a cycle ends instead of looping. */
const TRACK_DEPTH = 64;
const NO_PATHS: readonly (readonly string[])[] = [];

function setEntry(out: Record<string, unknown> | unknown[] | null, key: string, value: unknown): void {
  if (out === null) return;
  if (Array.isArray(out)) out.push(value);
  // An own `__proto__` key (JSON.parse makes one) stays a key: assigning it would set the prototype.
  else if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true });
  else out[key] = value;
}

/** A value as JSON would see it: `toJSON` first (dates, buffers, URLs); as it is if that throws. */
export function jsonView(value: object): unknown {
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON !== 'function') return value;
  try {
    return toJSON.call(value);
  } catch {
    // A tool's odd object: normalize reports it when it serializes the output.
    return value;
  }
}

/**
 * Copies a JSON-like value with its strings (and keys) rewritten and its secret entries
 * replaced by `[REDACTED]`, at any depth: an explicit stack, no recursion, so 10,000 levels cost
 * what 10,000 siblings do. `paths` (lowercased keys, split on dots, `*` for any key or index)
 * name entries that are secret whatever their key. A cycle is cut with `[Circular]`; below
 * MAX_COPY_DEPTH the rules still see every string and secret, but the copy holds CUT_DEEPER.
 */
export function transformTree(
  root: unknown,
  rules: TreeRules,
  paths: readonly (readonly string[])[] = NO_PATHS,
): unknown {
  if (typeof root === 'string') return rules.text(root);
  if (root === null || typeof root !== 'object') return root;
  const top = jsonView(root);
  if (top === null || typeof top !== 'object') return typeof top === 'string' ? rules.text(top) : top;
  const rootOut: Record<string, unknown> | unknown[] = Array.isArray(top) ? [] : {};
  const stack: Frame[] = [frameOf(top as object, rootOut, paths, 0)];
  let ancestors: Set<object> | null = null;
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const { src, keys } = frame;
    const length = keys ? keys.length : (src as unknown[]).length;
    if (frame.i >= length) {
      stack.pop();
      if (frame.depth > TRACK_DEPTH) ancestors?.delete(src);
      continue;
    }
    const index = frame.i++;
    const key = keys ? (keys[index] as string) : String(index);
    const inner = keys ? (src as Record<string, unknown>)[key] : (src as unknown[])[index];
    let matching = NO_PATHS;
    let pathHit = false;
    if (frame.paths.length > 0) {
      const lower = key.toLowerCase();
      matching = frame.paths.filter((p) => p[0] === '*' || p[0] === lower);
      pathHit = matching.some((p) => p.length === 1);
    }
    const outKey = keys && rules.key ? rules.key(key) : key;
    if (pathHit || (keys && rules.isSecretKey?.(key))) {
      rules.secret?.(inner);
      setEntry(frame.out, outKey, inner === null || inner === undefined || inner === '' ? inner : REDACTED);
      continue;
    }
    if (typeof inner === 'string') {
      setEntry(frame.out, outKey, rules.text(inner));
      continue;
    }
    if (inner === null || typeof inner !== 'object') {
      setEntry(frame.out, outKey, inner);
      continue;
    }
    const viewed = jsonView(inner);
    if (viewed === null || typeof viewed !== 'object') {
      setEntry(frame.out, outKey, typeof viewed === 'string' ? rules.text(viewed) : viewed);
      continue;
    }
    const depth = frame.depth + 1;
    if (depth > TRACK_DEPTH) {
      ancestors ??= new Set();
      if (ancestors.has(viewed)) {
        setEntry(frame.out, outKey, '[Circular]');
        continue;
      }
      ancestors.add(viewed);
    }
    let out: Record<string, unknown> | unknown[] | null = null;
    if (frame.out !== null && depth <= MAX_COPY_DEPTH) out = Array.isArray(viewed) ? [] : {};
    setEntry(frame.out, outKey, out ?? CUT_DEEPER);
    stack.push(frameOf(viewed, out, matching.length > 0 ? matching.map((p) => p.slice(1)) : NO_PATHS, depth));
  }
  return rootOut;
}

function frameOf(
  src: object,
  out: Record<string, unknown> | unknown[] | null,
  paths: readonly (readonly string[])[],
  depth: number,
): Frame {
  const isArray = Array.isArray(src);
  return {
    src: src as Frame['src'],
    out,
    keys: isArray ? null : Object.keys(src),
    i: 0,
    paths,
    depth,
  };
}

/**
 * Every string and number inside a value (a secret key's value may be an object), at any depth,
 * without recursion; keys are not secrets and are left out.
 */
export function collectLeaves(value: unknown, into: string[]): void {
  const stack: unknown[] = [value];
  let seen: Set<object> | null = null;
  let visited = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') into.push(v);
    else if (typeof v === 'number' || typeof v === 'bigint') into.push(String(v));
    else if (v !== null && typeof v === 'object') {
      // Past a few thousand objects, shared and cyclic ones are walked once.
      if (++visited > 4096) {
        seen ??= new Set();
        if (seen.has(v)) continue;
        seen.add(v);
      }
      const inner = Array.isArray(v) ? v : Object.values(v);
      for (let i = inner.length - 1; i >= 0; i--) stack.push(inner[i]);
    }
  }
}
