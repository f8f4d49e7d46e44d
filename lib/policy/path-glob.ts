import { blocksOf, matchSequence } from './match-sequence';
import { escapeLiteral, matchPart, type PartPattern, partOf, readEscapes, refuseGlobSyntax } from './part-pattern';

const ANY_SEGMENTS = Symbol('**');
type Segment = PartPattern | typeof ANY_SEGMENTS;
const isAnySegments = (segment: Segment): segment is typeof ANY_SEGMENTS => segment === ANY_SEGMENTS;

/**
 * Compiles a path glob, normalized (`path.posix.normalize`, no trailing `/`), into a matcher of
 * normalized paths. `*` matches characters within one segment (dotfiles too), `**` as a whole
 * segment matches any number of segments, none included (`notes/**` takes `notes` and everything
 * under it), `\` makes the next character literal. An absolute glob matches absolute paths only, a
 * relative one relative paths; a path's leading `..` segments must be the glob's own, so no
 * wildcard reaches outside where the glob starts. Throws for glob syntax it does not have
 * (`refuseGlobSyntax`) and for `**` inside a segment.
 * @example compilePathGlob('src/**\/*.ts')('src/a/b.ts') // true
 */
export function compilePathGlob(glob: string): (path: string) => boolean {
  const absolute = glob.startsWith('/');
  const raw = splitPath(glob);
  let up = 0;
  while (raw[up] === '..') up++;
  const segments = raw.slice(up).map((text, i): Segment => {
    const chars = readEscapes(text);
    refuseGlobSyntax(chars, { negation: i === 0 && up === 0 && !absolute });
    if (chars.length === 2 && chars.every((c) => c.special && c.char === '*')) return ANY_SEGMENTS;
    return partOf(chars, 'a path segment', 'write "**" as a whole segment (src/**/*.ts), "*" within one');
  });
  const blocks = blocksOf(segments, isAnySegments);
  return (path) => {
    if (path.startsWith('/') !== absolute) return false;
    const parts = splitPath(path);
    let pathUp = 0;
    while (parts[pathUp] === '..') pathUp++;
    return pathUp === up && matchSequence(blocks, parts.slice(up), matchPart);
  };
}

/**
 * The glob that matches exactly `path` (normalized) and nothing else: its glob characters escaped,
 * and a leading space too (a rule's specifier is trimmed, so a trailing one cannot be kept).
 * @example exactPathGlob('w/*') // 'w/\\*'
 */
export function exactPathGlob(path: string): string {
  return escapeLiteral(path).replace(/^\s/, (space) => `\\${space}`);
}

/** `a/b` → `['a', 'b']`, `/a` → `['a']`, `.` and `/` → `[]`. */
function splitPath(path: string): string[] {
  const rest = path.startsWith('/') ? path.slice(1) : path;
  return rest === '' || rest === '.' ? [] : rest.split('/');
}
