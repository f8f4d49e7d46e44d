import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpServerConfig } from '../../config';

/**
 * Where an upstream server's paths lead, for permission rules: the folders it resolves relative
 * paths against (absolute), and the home folder `~` stands for (null when not known).
 */
export interface ServerPaths {
  roots: string[];
  home: string | null;
}

/**
 * The roots of a server: the config's `roots` when it gives them; for a stdio server otherwise
 * the arguments that name existing folders (how server-filesystem, server-git and most file
 * servers are told their folder: `node index.js /home/me/notes`), and failing that its working
 * folder; an HTTP server without `roots` has none (its relative paths are matched as given).
 * `~` is the stdio server's `HOME`. Reads the file system: call it once, at start.
 */
export function serverPathsOf(config: McpServerConfig, cwd: string = process.cwd()): ServerPaths {
  if (config.transport === 'http') return { roots: config.roots ?? [], home: null };
  const home = config.env.HOME ?? os.homedir();
  if (config.roots) return { roots: config.roots, home };
  const workdir = config.cwd ?? cwd;
  const folders: string[] = [];
  for (const arg of config.args) {
    // `--root=/srv` gives its value; a bare option (`-y`, `--read-only`) names no folder.
    const value = arg.startsWith('-') ? (arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : '') : arg;
    if (value === '') continue;
    const folder = path.resolve(workdir, expandHome(value, home));
    if (isFolder(folder) && !folders.includes(folder)) folders.push(folder);
  }
  return { roots: folders.length > 0 ? folders : [path.resolve(workdir)], home };
}

function isFolder(candidate: string): boolean {
  try {
    return fs.statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

function expandHome(value: string, home: string | null): string {
  if (home === null || (value !== '~' && !value.startsWith('~/'))) return value;
  return path.posix.join(home, value.slice(1));
}

/**
 * A path argument as the permission rules see it: absolute and normalized, `~` expanded, a
 * relative path resolved against each root (one subject per root, as a server with several
 * folders may take it in any of them), a `file:` URI as its path besides the text itself (a
 * server may take it either way). Without roots, a relative path stays relative (normalized).
 * @example resolvePathArgument('notes/../secret/a', { roots: ['/srv'], home: null }) // ['/srv/secret/a']
 */
export function resolvePathArgument(value: string, paths: ServerPaths): string[] {
  const resolved: string[] = [];
  const add = (candidate: string) => {
    if (!resolved.includes(candidate)) resolved.push(candidate);
  };
  const resolveText = (text: string) => {
    const expanded = expandHome(text, paths.home);
    if (path.posix.isAbsolute(expanded)) add(path.posix.resolve(expanded));
    else if (paths.roots.length === 0) add(normalizeRelative(expanded));
    else for (const root of paths.roots) add(path.posix.resolve(root, expanded));
  };
  resolveText(value);
  if (/^file:/i.test(value)) {
    try {
      add(path.posix.resolve(fileURLToPath(value)));
    } catch {
      // Not a URI of a local file (`file://host/x`): the text alone is the subject.
    }
  }
  return resolved;
}

/** `./a//b/../c/` → `a/c`; `.` for the empty path. */
function normalizeRelative(value: string): string {
  const normalized = path.posix.normalize(value === '' ? '.' : value);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}

/** Last words of an argument's name that make it a path: `path`, `file_path`, `sourceFile`, `outputDir`, `paths`… */
const PATH_WORDS = new Set([
  'path',
  'paths',
  'pathname',
  'file',
  'files',
  'filename',
  'filenames',
  'filepath',
  'filepaths',
  'dir',
  'dirs',
  'dirname',
  'directory',
  'directories',
  'folder',
  'folders',
  'root',
  'roots',
  'source',
  'sources',
  'src',
  'destination',
  'destinations',
  'dest',
  'dst',
  'cwd',
  'workdir',
]);
/** Endings of a one-word name that make it a path too: `outdir`, `basepath`, `srcfilename`. */
const PATH_ENDINGS = ['path', 'paths', 'dir', 'dirs', 'directory', 'folder', 'filename', 'filenames'];

/**
 * Whether an argument's name says it holds a path: its last word (camelCase, snake_case and
 * kebab-case split) is one of PATH_WORDS, or a name of one lowercase word ends like one.
 */
export function isPathName(name: string): boolean {
  let known = namesSeen.get(name);
  if (known === undefined) {
    known = nameSaysPath(name);
    if (namesSeen.size >= MAX_NAMES_SEEN) namesSeen.clear();
    namesSeen.set(name, known);
  }
  return known;
}

/** Argument names already judged: calls repeat the same few names. */
const namesSeen = new Map<string, boolean>();
const MAX_NAMES_SEEN = 4096;

/** What every name of PATH_WORDS and PATH_ENDINGS holds: a name without any is no path, at once. */
const MAYBE_PATH = /pat|fil|dir|fold|root|src|sour|dest|dst|cwd/i;

function nameSaysPath(name: string): boolean {
  if (!MAYBE_PATH.test(name)) return false;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const last = words.at(-1);
  if (last === undefined) return false;
  if (PATH_WORDS.has(last)) return true;
  return words.length === 1 && PATH_ENDINGS.some((ending) => last.endsWith(ending));
}

/** JSON Schema formats of a path or a URI (a `file:` URI is a path). */
const PATH_FORMATS = new Set([
  'path',
  'file-path',
  'filepath',
  'file',
  'directory',
  'dir',
  'uri',
  'uri-reference',
  'iri',
  'iri-reference',
]);
/** A title or description that names a path (not a bare "file": "the lines of the file" is no path). */
const PATH_WORDING = /\b(?:paths?|path ?names?|file ?names?|director(?:y|ies)|folders?)\b/i;

type Schema = Record<string, unknown>;
const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** At most this many `$ref` hops are followed from one schema (a cycle of refs ends there). */
const MAX_REF_HOPS = 32;

/** `schema` with local `$ref`s (`#/$defs/x`, `#/definitions/x`) followed, from `root`. */
function deref(schema: unknown, root: unknown): Schema | null {
  let current = schema;
  for (let hop = 0; hop < MAX_REF_HOPS && isObject(current) && typeof current.$ref === 'string'; hop++) {
    const ref = current.$ref;
    if (!ref.startsWith('#')) return current;
    let target: unknown = root;
    for (const part of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) ? target[key] : undefined;
    }
    current = target;
  }
  return isObject(current) ? current : null;
}

/** The schema and its `allOf`/`anyOf`/`oneOf` branches (one level, refs followed). */
function branchesOf(schema: unknown, root: unknown): Schema[] {
  const self = deref(schema, root);
  if (!self) return [];
  const branches = [self];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = self[key];
    if (!Array.isArray(list)) continue;
    for (const branch of list) {
      const resolved = deref(branch, root);
      if (resolved) branches.push(resolved);
    }
  }
  return branches;
}

/** Whether a schema marks a path: a path or URI `format`, or a title or description naming a path. */
function saysPath(schema: Schema | null): boolean {
  if (!schema) return false;
  if (typeof schema.format === 'string' && PATH_FORMATS.has(schema.format.toLowerCase())) return true;
  return [schema.title, schema.description].some((text) => typeof text === 'string' && PATH_WORDING.test(text));
}

/** Whether a property's schema (or a branch of it, or its items: an array of paths) marks it as a path. */
function marksPath(schema: unknown, root: unknown): boolean {
  return branchesOf(schema, root).some(
    (branch) => saysPath(branch) || (isObject(branch.items) && saysPath(deref(branch.items, root))),
  );
}

/** The schema of property `key` of an object whose schema is `schema`; undefined when it says none. */
function propertySchema(schema: unknown, key: string, root: unknown): unknown {
  for (const branch of branchesOf(schema, root)) {
    const properties = branch.properties;
    if (isObject(properties) && Object.hasOwn(properties, key)) return properties[key];
  }
  for (const branch of branchesOf(schema, root)) {
    if (isObject(branch.additionalProperties)) return branch.additionalProperties;
  }
  return undefined;
}

/** The schema of the items of an array whose schema is `schema`. */
function itemSchema(schema: unknown, root: unknown): unknown {
  for (const branch of branchesOf(schema, root)) {
    if (isObject(branch.items)) return branch.items;
  }
  return undefined;
}

/**
 * Every path a call's arguments hold, as given: each string (alone, or in arrays at any depth)
 * under a name that says path (`isPathName`: `path`, `paths[]`, `source`, `destination`,
 * `file_path`…) or whose schema marks it as one (a `format` of `path` or `uri`, a title or
 * description naming a path), at any depth of the arguments; and any string that is a `file:`
 * URI wherever it is. Walks the arguments without recursion, so deep input cannot overflow it.
 */
export function pathArguments(input: unknown, schema: unknown): string[] {
  const found: string[] = [];
  const stack: { value: unknown; schema: unknown; isPath: boolean }[] = [{ value: input, schema, isPath: false }];
  while (stack.length > 0) {
    const { value, schema: at, isPath } = stack.pop() as (typeof stack)[number];
    if (typeof value === 'string') {
      if (isPath || /^file:/i.test(value)) found.push(value);
    } else if (Array.isArray(value)) {
      const items = at === undefined ? undefined : itemSchema(at, schema);
      // The items of a path list are paths (`paths: [...]`); so are lists in lists.
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], schema: items, isPath });
    } else if (isObject(value)) {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const child = at === undefined ? undefined : propertySchema(at, key, schema);
        const childIsPath = isPathName(key) || (child !== undefined && marksPath(child, schema));
        stack.push({ value: value[key], schema: child, isPath: childIsPath });
      }
    }
  }
  return found;
}
