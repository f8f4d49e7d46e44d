import type { BoundedText, CallDescriber, CallPreview } from '../executor/call-preview';
import { quoteForSh, shellLine } from './shell-quote';

/**
 * The built-in tools' readings of their calls (`ToolDefinition.describe`), and the generic one for
 * every other tool. Pure and free of Node, so the browser's list uses the same ones as the API.
 */

/** The longest summary: a list row truncates long before. */
export const SUMMARY_MAX_CHARS = 240;
/** The longest command line, URL or one-line text a preview carries. */
const LINE_MAX_CHARS = 4_000;
/** The most of a file's content, a request body or stdin a preview carries. */
export const PREVIEW_TEXT_MAX_CHARS = 20_000;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const strings = (value: unknown): string[] | null =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : null;
const integer = (value: unknown): number | null => (Number.isInteger(value) ? (value as number) : null);
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `value` cut to `max` characters (never inside a surrogate pair). */
export function bounded(value: string, max = PREVIEW_TEXT_MAX_CHARS): BoundedText {
  if (value.length <= max) return { text: value, omitted: 0 };
  const end = /[\uD800-\uDBFF]/.test(value[max - 1] ?? '') ? max - 1 : max;
  return { text: value.slice(0, end), omitted: value.length - end };
}

/** Lines of a text as an editor counts them: none when empty, a final newline ends the last one. */
export function lineCount(content: string): number {
  if (content === '') return 0;
  let count = 1;
  for (let at = content.indexOf('\n'); at !== -1; at = content.indexOf('\n', at + 1)) count++;
  return content.endsWith('\n') ? count - 1 : count;
}

const utf8Bytes = (value: string) => new TextEncoder().encode(value).length;

/** `run_shell`: `cd src && git commit -m 'fix it'`, the argv quoted for sh. */
export const runShellDescriber: CallDescriber = {
  summary(args, cut) {
    const argv = strings(args.command);
    if (!argv || argv.length === 0) return null;
    const cwd = text(args.cwd);
    const inFolder = cwd && cwd !== '.' ? `cd ${quoteForSh(cwd)} && ` : '';
    return `${inFolder}${shellLine(argv)}${cut ? ' …' : ''}`;
  },
  preview(args) {
    const argv = strings(args.command);
    if (!argv || argv.length === 0) return null;
    const stdin = text(args.stdin);
    return {
      kind: 'command',
      line: bounded(shellLine(argv), LINE_MAX_CHARS),
      cwd: text(args.cwd),
      stdin: stdin === null ? null : bounded(stdin),
    };
  },
};

/** `write_file`: `notes/a.md (3 lines)`; the preview holds the new content. */
export const writeFileDescriber: CallDescriber = {
  summary(args, cut) {
    const path = text(args.path);
    if (path === null) return null;
    const content = text(args.content);
    if (content !== null) return `${path} (${plural(lineCount(content), 'line')})`;
    return cut ? `${path} (…)` : path;
  },
  preview(args) {
    const path = text(args.path);
    const content = text(args.content);
    if (path === null || content === null) return null;
    return {
      kind: 'file',
      path,
      lines: lineCount(content),
      bytes: utf8Bytes(content),
      content: bounded(content),
      change: null,
    };
  },
};

function linesRead(args: Record<string, unknown>): string {
  const offset = integer(args.offset);
  const limit = integer(args.limit);
  if (limit !== null) return ` (lines ${offset ?? 1}–${(offset ?? 1) + limit - 1})`;
  return offset !== null ? ` (from line ${offset})` : '';
}

/** `read_file`: the path, with the lines asked for. */
export const readFileDescriber: CallDescriber = {
  summary(args) {
    const path = text(args.path);
    return path === null ? null : `${path}${linesRead(args)}`;
  },
  preview(args) {
    const summary = readFileDescriber.summary(args, false);
    return summary === null ? null : { kind: 'text', text: bounded(summary, LINE_MAX_CHARS).text };
  },
};

const methodOf = (args: Record<string, unknown>) => (text(args.method) ?? 'GET').toUpperCase();

/** `GET api.example.com/v1/items?page=2`: host (with a port that is not the default) and path, no scheme. */
function hostAndPath(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname}${parsed.search}`;
}

/** `http_request`: `METHOD host/path`; the preview has the URL whole, the headers and the body. */
export const httpRequestDescriber: CallDescriber = {
  summary(args) {
    const url = text(args.url);
    return url === null ? null : `${methodOf(args)} ${hostAndPath(url)}`;
  },
  preview(args) {
    const url = text(args.url);
    if (url === null) return null;
    const headers =
      args.headers && typeof args.headers === 'object' && !Array.isArray(args.headers)
        ? Object.entries(args.headers as Record<string, unknown>).map(([name, value]) => ({
            name,
            value: typeof value === 'string' ? value : JSON.stringify(value),
          }))
        : [];
    const body = text(args.body);
    return {
      kind: 'request',
      method: methodOf(args),
      url: bounded(url, LINE_MAX_CHARS).text,
      headers,
      body: body === null ? null : bounded(body),
    };
  },
};

/** `calculator`: the expression. */
export const calculatorDescriber: CallDescriber = {
  summary(args) {
    const expression = text(args.expression);
    if (expression === null) return null;
    const precision = integer(args.precision);
    return precision === null ? expression : `${expression} (${plural(precision, 'decimal')})`;
  },
  preview(args) {
    const summary = calculatorDescriber.summary(args, false);
    return summary === null ? null : { kind: 'text', text: bounded(summary, LINE_MAX_CHARS).text };
  },
};

/** The built-in tools' describers by name, for where no registry is at hand (a list row, the browser). */
export const BUILTIN_DESCRIBERS: ReadonlyMap<string, CallDescriber> = new Map([
  ['calculator', calculatorDescriber],
  ['read_file', readFileDescriber],
  ['write_file', writeFileDescriber],
  ['run_shell', runShellDescriber],
  ['http_request', httpRequestDescriber],
]);

function compactValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return value.length === 0 ? '[]' : `[${plural(value.length, 'item')}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).length === 0 ? '' : '…'}}`;
  return String(value);
}

/** Any tool's arguments in one line: `path: "a.md", limit: 10`, nested values as `{…}` / `[3 items]`. */
export function genericSummary(args: unknown, cut = false): string {
  let line: string;
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    const entries = Object.entries(args as Record<string, unknown>);
    line = entries.length === 0 ? '{}' : entries.map(([key, value]) => `${key}: ${compactValue(value)}`).join(', ');
  } else {
    line = typeof args === 'string' ? args.replace(/\s+/g, ' ').trim() : (JSON.stringify(args) ?? '');
  }
  return cut ? `${line} …` : line;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** At most SUMMARY_MAX_CHARS characters, `…` marking a cut. */
function oneLine(line: string): string {
  return line.length > SUMMARY_MAX_CHARS ? `${line.slice(0, SUMMARY_MAX_CHARS - 1)}…` : line;
}

/**
 * A call's one-line summary from its redacted arguments: the tool's own, else the generic one
 * (also when the tool's cannot read them, or throws). `cut`: the arguments are the start of longer ones.
 * @example callSummary(runShellDescriber, { command: ['ls', 'my files'] }) // "ls 'my files'"
 */
export function callSummary(describer: CallDescriber | undefined, args: unknown, cut = false): string {
  if (describer && isRecord(args)) {
    try {
      const own = describer.summary(args, cut);
      if (own !== null) return oneLine(own);
    } catch {
      // a describer that fails says nothing: the generic form does
    }
  }
  return oneLine(genericSummary(args, cut));
}

/** A call's preview from its redacted arguments: the tool's own, else `{ kind: 'arguments' }`. */
export function callPreview(describer: CallDescriber | undefined, args: unknown): CallPreview {
  if (describer && isRecord(args)) {
    try {
      return describer.preview(args) ?? { kind: 'arguments' };
    } catch {
      // as in callSummary
    }
  }
  return { kind: 'arguments' };
}

/**
 * The preview of a call still pending, with what it would change now (`previewNow`), texts read
 * from the machine passed through `scrub`; the plain preview when the tool has no such reading.
 */
export async function pendingCallPreview(
  describer: CallDescriber | undefined,
  args: unknown,
  scrub: (text: string) => string,
): Promise<CallPreview> {
  if (describer?.previewNow && isRecord(args)) {
    try {
      const now = await describer.previewNow(args, scrub);
      if (now) return now;
    } catch {
      // as in callSummary
    }
  }
  return callPreview(describer, args);
}
