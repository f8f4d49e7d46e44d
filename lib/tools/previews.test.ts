import { execFileSync } from 'node:child_process';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallDescriber, CallPreview } from '../executor/call-preview';
import { createBuiltinTools } from './index';
import { callPreview, callSummary, lineCount, PREVIEW_TEXT_MAX_CHARS, pendingCallPreview } from './previews';
import { quoteForSh, shellLine } from './shell-quote';
import { createTempDir } from './test-helpers';

/**
 * Each built-in tool's reading of its calls (`describe`), through the tools as `createBuiltinTools`
 * makes them: summaries and previews from redacted arguments, the shell line checked by a real
 * `sh`, `write_file`'s pending preview against real files in a temporary workspace.
 */
let temp: Awaited<ReturnType<typeof createTempDir>>;
let workspace: string;
let describers: Map<string, CallDescriber>;
const noScrub = (text: string) => text;

beforeAll(async () => {
  temp = await createTempDir('toolscope-previews-');
  workspace = path.join(await realpath(temp.dir), 'ws');
  await mkdir(path.join(workspace, 'notes'), { recursive: true });
  const tools = createBuiltinTools({ workspace, shellAllow: ['ls'], httpAllow: ['localhost'], configFile: null });
  describers = new Map(tools.map((tool) => [tool.name, tool.describe as CallDescriber]));
});

afterAll(() => temp.remove());

const summary = (tool: string, args: unknown, cut = false) => callSummary(describers.get(tool), args, cut);
const preview = (tool: string, args: unknown) => callPreview(describers.get(tool), args);

/** The words `sh` reads from `line`, printed back NUL-separated by a real shell. */
function wordsOf(line: string): string[] {
  const printed = execFileSync('sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  return printed.split('\0').slice(0, -1);
}

describe('every built-in tool describes its calls', () => {
  it('is given to each of them', () => {
    expect([...describers.keys()].sort()).toEqual([
      'calculator',
      'http_request',
      'read_file',
      'run_shell',
      'write_file',
    ]);
    for (const describer of describers.values()) expect(describer).toBeDefined();
  });
});

describe('run_shell', () => {
  it('reads as one command line, quoted for sh: spaces, quotes, $ and globs survive a real shell', () => {
    const argv = ['git', 'commit', '-m', `it's "done" now`, '$HOME', '*.ts', 'a;b', '', 'tab\there', 'x=1'];
    const line = summary('run_shell', { command: argv });
    expect(line).toBe(`git commit -m 'it'\\''s "done" now' '$HOME' '*.ts' 'a;b' '' 'tab\there' x=1`);
    expect(wordsOf(line)).toEqual(argv);
    expect(preview('run_shell', { command: argv })).toEqual({
      kind: 'command',
      line: { text: line, omitted: 0 },
      cwd: null,
      stdin: null,
    });
  });

  it('quotes a first word holding "=", which sh would take for an assignment', () => {
    expect(shellLine(['a=b', 'c=d'])).toBe(`'a=b' c=d`);
    expect(quoteForSh('plain-word_1.0,/x:y@z%')).toBe('plain-word_1.0,/x:y@z%');
    expect(quoteForSh('~/x')).toBe(`'~/x'`);
  });

  it('says the folder as `cd … &&`, keeps stdin for the preview, and marks arguments cut short', () => {
    expect(summary('run_shell', { command: ['ls', '-la'], cwd: 'my dir' })).toBe(`cd 'my dir' && ls -la`);
    expect(summary('run_shell', { command: ['ls'], cwd: '.' })).toBe('ls');
    expect(summary('run_shell', { command: ['cat', 'a'] }, true)).toBe('cat a …');
    expect(preview('run_shell', { command: ['cat'], cwd: 'src', stdin: 'hello' })).toMatchObject({
      cwd: 'src',
      stdin: { text: 'hello', omitted: 0 },
    });
  });

  it('falls back to the generic form for arguments it cannot read', () => {
    expect(summary('run_shell', { command: 'ls -la' })).toBe('command: "ls -la"');
    expect(summary('run_shell', { command: [] })).toBe('command: []');
    expect(preview('run_shell', { command: [1, 2] })).toEqual({ kind: 'arguments' });
  });
});

describe('http_request', () => {
  it('reads as METHOD host/path in a list, and as METHOD URL with headers and body in the preview', () => {
    const args = {
      url: 'https://API.example.com:8443/v1/items?page=2#top',
      method: 'post',
      headers: { 'content-type': 'application/json', authorization: '[REDACTED]' },
      body: '{"name":"x"}',
    };
    expect(summary('http_request', args)).toBe('POST api.example.com:8443/v1/items?page=2');
    expect(summary('http_request', { url: 'http://localhost/' })).toBe('GET localhost/');
    expect(summary('http_request', { url: 'not a url' })).toBe('GET not a url');
    expect(preview('http_request', args)).toEqual({
      kind: 'request',
      method: 'POST',
      url: 'https://API.example.com:8443/v1/items?page=2#top',
      headers: [
        { name: 'content-type', value: 'application/json' },
        { name: 'authorization', value: '[REDACTED]' },
      ],
      body: { text: '{"name":"x"}', omitted: 0 },
    });
  });
});

describe('read_file and calculator', () => {
  it('read as their path (with the lines asked for) and their expression', () => {
    expect(summary('read_file', { path: 'README.md' })).toBe('README.md');
    expect(summary('read_file', { path: 'a.ts', offset: 10, limit: 20 })).toBe('a.ts (lines 10–29)');
    expect(summary('read_file', { path: 'a.ts', offset: 5 })).toBe('a.ts (from line 5)');
    expect(preview('read_file', { path: 'a.ts' })).toEqual({ kind: 'text', text: 'a.ts' });
    expect(summary('calculator', { expression: 'sqrt(2) * 3', precision: 2 })).toBe('sqrt(2) * 3 (2 decimals)');
    expect(preview('calculator', { expression: '1+1' })).toEqual({ kind: 'text', text: '1+1' });
  });
});

describe('write_file', () => {
  it('reads as `path (N lines)`, and says less when the content was cut off', () => {
    expect(summary('write_file', { path: 'notes/a.md', content: 'one\ntwo\nthree\n' })).toBe('notes/a.md (3 lines)');
    expect(summary('write_file', { path: 'a', content: 'x' })).toBe('a (1 line)');
    expect(summary('write_file', { path: 'a', content: '' })).toBe('a (0 lines)');
    expect(summary('write_file', { path: 'notes/a.md' }, true)).toBe('notes/a.md (…)');
    expect(lineCount('a\n\nb')).toBe(3);
  });

  it('previews a call made no more: the new content, not compared with the disk', () => {
    expect(preview('write_file', { path: 'n.txt', content: 'héllo\n' })).toEqual({
      kind: 'file',
      path: 'n.txt',
      lines: 1,
      bytes: 7,
      content: { text: 'héllo\n', omitted: 0 },
      change: null,
    });
  });

  it('previews a pending call as a new file when nothing is at its path', async () => {
    const now = await pendingCallPreview(
      describers.get('write_file'),
      { path: 'notes/new.md', content: 'a\n' },
      noScrub,
    );
    expect(now).toMatchObject({ kind: 'file', path: 'notes/new.md', change: { kind: 'new' } });
  });

  it('previews a pending call with its diff against the file on disk, its text scrubbed first', async () => {
    await writeFile(path.join(workspace, 'notes/todo.md'), 'buy milk\ntoken sk-secret-1\ncall mom\n');
    const scrub = (text: string) => text.replaceAll('sk-secret-1', '[REDACTED]');
    const now = (await pendingCallPreview(
      describers.get('write_file'),
      { path: 'notes/todo.md', content: 'buy milk\ntoken [REDACTED]\ncall dad\n' },
      scrub,
    )) as Extract<CallPreview, { kind: 'file' }>;
    expect(now.change).toEqual({
      kind: 'diff',
      added: 1,
      removed: 1,
      omitted: 0,
      lines: [
        { kind: 'same', text: 'buy milk', oldNo: 1, newNo: 1 },
        { kind: 'same', text: 'token [REDACTED]', oldNo: 2, newNo: 2 },
        { kind: 'removed', text: 'call mom', oldNo: 3, newNo: null },
        { kind: 'added', text: 'call dad', oldNo: null, newNo: 3 },
      ],
    });
    expect(JSON.stringify(now)).not.toContain('sk-secret-1');
  });

  it('bounds the content a preview carries', () => {
    const content = 'x'.repeat(PREVIEW_TEXT_MAX_CHARS + 5);
    const shown = preview('write_file', { path: 'big.txt', content }) as Extract<CallPreview, { kind: 'file' }>;
    expect(shown.content).toEqual({ text: 'x'.repeat(PREVIEW_TEXT_MAX_CHARS), omitted: 5 });
    expect(shown.bytes).toBe(PREVIEW_TEXT_MAX_CHARS + 5);
  });
});

describe('the generic form', () => {
  it('serves tools without a describer, and tools whose describer fails', () => {
    expect(callSummary(undefined, { path: 'a.md', limit: 10, opts: { a: 1 }, list: [1, 2] })).toBe(
      'path: "a.md", limit: 10, opts: {…}, list: [2 items]',
    );
    expect(callSummary(undefined, 'not json\n at all')).toBe('not json at all');
    const broken: CallDescriber = {
      summary: () => {
        throw new Error('boom');
      },
      preview: () => {
        throw new Error('boom');
      },
    };
    expect(callSummary(broken, { a: 1 })).toBe('a: 1');
    expect(callPreview(broken, { a: 1 })).toEqual({ kind: 'arguments' });
    expect(callSummary(undefined, { text: 'y'.repeat(500) })).toHaveLength(240);
  });
});
