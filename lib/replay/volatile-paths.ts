import type { PathChange } from '../ui/json-path-diff';

/** One step of a JSON path: an object key or an array index. */
export type PathSegment = string | number;

/**
 * A path whose differences are not "output changed": a glob over JSON paths (`headers.date`,
 * `*.timestamp`, `**.request_id`, `items[*].id`). `timestampsOnly`: only when the values on both
 * sides are timestamps (an ISO-8601 or HTTP date string, or epoch seconds or milliseconds).
 */
export interface IgnoreRule {
  pattern: string;
  timestampsOnly: boolean;
  source: 'default' | 'config';
}

/** A difference at a volatile path, left out of the verdict; `rule` is the pattern that matched. */
export interface IgnoredChange extends PathChange {
  rule: string;
}

/** Response headers that differ on every request. */
const VOLATILE_HEADERS = ['date', 'age', 'expires', 'x-request-id', 'request-id', 'x-correlation-id', 'cf-ray'];

/** Keys that hold a point in time; ignored only when both values are timestamps. */
const TIME_KEYS = ['*_at', '*At', 'timestamp', 'date', 'time', 'datetime', 'ts', '*_time', '*_date', '*_ts'];

/** The rules every comparison applies; the config's `compare.ignore_paths` adds to them. */
export const DEFAULT_IGNORE_RULES: readonly IgnoreRule[] = [
  ...VOLATILE_HEADERS.map((name) => ({
    pattern: `**.headers.${name}`,
    timestampsOnly: false,
    source: 'default' as const,
  })),
  ...TIME_KEYS.map((key) => ({ pattern: `**.${key}`, timestampsOnly: true, source: 'default' as const })),
];

/** A glob's step: `**` (any number of segments), or a test of one segment. */
type GlobPart = { deep: true } | { deep: false; test: (segment: PathSegment) => boolean };

export type ParsedGlob = { ok: true; parts: GlobPart[] } | { ok: false; message: string };

/** The longest glob the config takes, and the most segments. */
export const MAX_GLOB_CHARS = 256;
const MAX_GLOB_PARTS = 32;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A segment pattern: `*` matches anything; inside a key (`*_at`) any run of characters; case ignored. */
function segmentTest(pattern: string): (segment: PathSegment) => boolean {
  if (pattern === '*') return () => true;
  if (!pattern.includes('*')) {
    const lower = pattern.toLowerCase();
    return (segment) => String(segment).toLowerCase() === lower;
  }
  const regex = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 'is');
  return (segment) => regex.test(String(segment));
}

/**
 * Splits a path into its segments: keys joined by `.`, indexes as `[2]`, other keys as
 * `["x.y"]` (JSON strings), as `childPath` writes them; a bare key is any run of characters but
 * `.` and `[`. Null when it is not such a path. A quoted key is taken as written (no wildcard).
 */
function splitPath(path: string): { text: string; quoted: boolean }[] | null {
  const parts: { text: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '[') {
      if (path[i + 1] === '"') {
        // A JSON string: find its closing quote, escapes skipped.
        let end = i + 2;
        while (end < path.length && path[end] !== '"') end += path[end] === '\\' ? 2 : 1;
        if (path[end + 1] !== ']') return null;
        try {
          parts.push({ text: JSON.parse(path.slice(i + 1, end + 1)) as string, quoted: true });
        } catch {
          return null;
        }
        i = end + 2;
      } else {
        const close = path.indexOf(']', i);
        if (close < 0) return null;
        const inside = path.slice(i + 1, close);
        if (!/^(?:\d+|\*)$/.test(inside)) return null;
        parts.push({ text: inside, quoted: false });
        i = close + 1;
      }
      if (i < path.length && path[i] === '.') {
        i += 1;
        if (i === path.length) return null;
      }
      continue;
    }
    let end = i;
    while (end < path.length && path[end] !== '.' && path[end] !== '[') end += 1;
    if (end === i) return null;
    parts.push({ text: path.slice(i, end), quoted: false });
    i = end;
    if (path[i] === '.') {
      i += 1;
      if (i === path.length) return null;
    }
  }
  return parts;
}

/** The segments of a path as `jsonPathDiff` names it (`items[2]["x-y"].name`); null when malformed. */
export function pathSegments(path: string): PathSegment[] | null {
  if (path === '') return [];
  const parts = splitPath(path);
  return parts ? parts.map(({ text, quoted }) => (!quoted && /^\d+$/.test(text) ? Number(text) : text)) : null;
}

/**
 * Reads a glob such as `headers.date`, `*.timestamp`, `**.request_id`, `items[*].id` or
 * `headers["x.y"]`: `*` is any one segment (or, inside a key, any characters), `**` any number of
 * segments, names compare without case. An error says what is wrong.
 */
export function parseGlob(pattern: string): ParsedGlob {
  if (pattern.trim() === '') return { ok: false, message: 'an empty path' };
  if (pattern.length > MAX_GLOB_CHARS) return { ok: false, message: `at most ${MAX_GLOB_CHARS} characters` };
  const parts = splitPath(pattern);
  if (!parts) {
    return {
      ok: false,
      message: `"${pattern}" is not a path such as "headers.date", "*.timestamp", "**.request_id" or "items[*].id"`,
    };
  }
  if (parts.length > MAX_GLOB_PARTS) return { ok: false, message: `at most ${MAX_GLOB_PARTS} segments` };
  if (parts.every((part) => !part.quoted && (part.text === '**' || part.text === '*'))) {
    return { ok: false, message: `"${pattern}" is wildcards only: it would ignore whole outputs; name a key` };
  }
  const compiled = parts.map(({ text, quoted }): GlobPart => {
    if (quoted) return { deep: false, test: (segment) => String(segment) === text };
    if (text === '**') return { deep: true };
    return { deep: false, test: segmentTest(text) };
  });
  return { ok: true, parts: compiled };
}

/** Whether `segments` match the glob's parts (dynamic programming: linear in both lengths' product). */
function globMatches(parts: readonly GlobPart[], segments: readonly PathSegment[]): boolean {
  // can[j]: the parts read so far match the first j segments.
  let can = new Array<boolean>(segments.length + 1).fill(false);
  can[0] = true;
  for (const part of parts) {
    const next = new Array<boolean>(segments.length + 1).fill(false);
    for (let j = 0; j <= segments.length; j++) {
      if (part.deep) next[j] = can[j]! || (j > 0 && next[j - 1]!);
      else next[j] = j > 0 && can[j - 1]! && part.test(segments[j - 1]!);
    }
    can = next;
  }
  return can[segments.length]!;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
/** 2001-09-09 to 2286-11-20, in seconds and in milliseconds. */
const EPOCH_S = [1e9, 1e10];
const EPOCH_MS = [1e12, 1e13];

/** Which kind of timestamp a value is; null for anything else. */
function timestampKind(value: unknown): 'text' | 's' | 'ms' | null {
  if (typeof value === 'string') {
    return (ISO_DATE.test(value) || HTTP_DATE.test(value)) && !Number.isNaN(Date.parse(value)) ? 'text' : null;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  if (value >= EPOCH_MS[0]! && value < EPOCH_MS[1]!) return 'ms';
  if (value >= EPOCH_S[0]! && value < EPOCH_S[1]!) return 's';
  return null;
}

/** The rules compiled, ready to test changes. */
export interface IgnoreRules {
  readonly rules: readonly IgnoreRule[];
  /** The rule a change matches, or null when it is a real difference. */
  match(change: PathChange): IgnoreRule | null;
}

/**
 * The default rules plus the config's `compare.ignore_paths` (checked by the config; a malformed
 * one here is skipped). A `timestampsOnly` rule takes only a change whose two values are
 * timestamps of one kind; a path rule takes an addition or removal too.
 * @example ignoreRules(['**.request_id']).match({ path: 'meta.request_id', kind: 'changed', before: 'a', after: 'b' })
 */
export function ignoreRules(configPaths: readonly string[] = []): IgnoreRules {
  const rules = [
    ...DEFAULT_IGNORE_RULES,
    ...configPaths.map((pattern): IgnoreRule => ({ pattern, timestampsOnly: false, source: 'config' })),
  ];
  const compiled = rules.flatMap((rule) => {
    const glob = parseGlob(rule.pattern);
    return glob.ok ? [{ rule, parts: glob.parts }] : [];
  });
  return {
    rules,
    match(change) {
      const segments = pathSegments(change.path);
      if (!segments || segments.length === 0) return null;
      for (const { rule, parts } of compiled) {
        if (rule.timestampsOnly) {
          if (change.kind !== 'changed') continue;
          const kind = timestampKind(change.before);
          if (kind === null || kind !== timestampKind(change.after)) continue;
        }
        if (globMatches(parts, segments)) return rule;
      }
      return null;
    },
  };
}

/** No rule at all: every difference counts. */
export const NO_IGNORE_RULES: IgnoreRules = { rules: [], match: () => null };

/** Changes split into the real ones and those at volatile paths. */
export function splitVolatile(
  changes: readonly PathChange[],
  rules: IgnoreRules,
): { real: PathChange[]; ignored: IgnoredChange[] } {
  const real: PathChange[] = [];
  const ignored: IgnoredChange[] = [];
  for (const change of changes) {
    const rule = rules.match(change);
    if (rule) ignored.push({ ...change, rule: rule.pattern });
    else real.push(change);
  }
  return { real, ignored };
}

const compiledFor = new WeakMap<readonly string[], IgnoreRules>();

/** `ignoreRules` of the config's paths, compiled once per list (the config's is read once). */
export function configuredIgnoreRules(configPaths: readonly string[]): IgnoreRules {
  let rules = compiledFor.get(configPaths);
  if (!rules) {
    rules = ignoreRules(configPaths);
    compiledFor.set(configPaths, rules);
  }
  return rules;
}
