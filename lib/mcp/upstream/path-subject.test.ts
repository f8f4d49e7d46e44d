import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../config';
import { defineTool } from '../../executor/define-tool';
import { jsonSchemaInput } from '../../executor/json-schema-input';
import { compileRuleSet, type RuleInput } from '../../policy/rule-set';
import { isPathName, pathArguments, resolvePathArgument, serverPathsOf } from './path-arguments';
import { createUpstreamPathSubject } from './path-subject';

const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-upstream-paths-'));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

const stdio = (args: string[], extra: Partial<McpServerConfig & { transport: 'stdio' }> = {}): McpServerConfig => ({
  name: 'fs',
  transport: 'stdio',
  command: 'node',
  args,
  env: {},
  cwd: null,
  timeoutMs: 1000,
  retries: 1,
  trustAnnotations: false,
  roots: null,
  tools: {},
  ...extra,
});

describe('the paths a call takes (pathArguments)', () => {
  it('finds path, paths[], source, destination and names that end in a path word, at any depth', () => {
    expect(
      pathArguments(
        {
          path: 'a',
          paths: ['b', 'c'],
          source: 'd',
          destination: 'e',
          file_path: 'f',
          outputDir: 'g',
          filename: 'h',
          options: { cwd: 'i', nested: [{ targetFile: 'j' }] },
          content: 'not a path',
          excludePatterns: ['*.log'],
          count: 3,
        },
        undefined,
      ),
    ).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']);
    expect(['path', 'sourceFile', 'old-path', 'workdir', 'basedir', 'roots'].every(isPathName)).toBe(true);
    expect(['content', 'pattern', 'profile', 'excludePatterns', 'dryRun', 'head'].some(isPathName)).toBe(false);
  });

  it('finds the fields the schema marks (a path or URI format, a description naming a path, through $ref) and file: URIs anywhere', () => {
    const schema = {
      type: 'object',
      properties: {
        where: { type: 'string', format: 'path' },
        link: { type: 'string', format: 'uri' },
        inputs: { type: 'array', items: { type: 'string', description: 'A file path to read' } },
        target: { $ref: '#/$defs/location' },
        text: { type: 'string', description: 'Text to write to the file' },
        pick: { anyOf: [{ type: 'string', title: 'Folder' }, { type: 'number' }] },
      },
      $defs: { location: { type: 'string', description: 'The directory to use' } },
    };
    expect(
      pathArguments(
        {
          where: 'w',
          link: 'file:///etc/passwd',
          inputs: ['x', 'y'],
          target: 't',
          text: 'hello',
          pick: 'p',
          note: 'file:///root/secret',
        },
        schema,
      ),
    ).toEqual(['w', 'file:///etc/passwd', 'x', 'y', 't', 'p', 'file:///root/secret']);
  });

  it('walks deep arguments without recursion', () => {
    let deep: unknown = { path: 'bottom' };
    for (let i = 0; i < 50_000; i++) deep = { next: deep };
    expect(pathArguments(deep, undefined)).toEqual(['bottom']);
  });
});

describe('resolving a path against the server (resolvePathArgument, serverPathsOf)', () => {
  const paths = { roots: ['/srv/a', '/srv/b'], home: '/home/me' };

  it('resolves a relative path against every root, normalizes, expands ~ and reads file: URIs', () => {
    expect(resolvePathArgument('secret/key', paths)).toEqual(['/srv/a/secret/key', '/srv/b/secret/key']);
    expect(resolvePathArgument('./notes/../secret//key', { roots: ['/srv'], home: null })).toEqual(['/srv/secret/key']);
    expect(resolvePathArgument('', { roots: ['/srv'], home: null })).toEqual(['/srv']);
    expect(resolvePathArgument('/srv/a/x/../../../root/k', paths)).toEqual(['/root/k']);
    expect(resolvePathArgument('~/.ssh/id_rsa', paths)).toEqual(['/home/me/.ssh/id_rsa']);
    expect(resolvePathArgument('file:///root/secret/k', { roots: ['/srv'], home: null })).toEqual([
      '/srv/file:/root/secret/k',
      '/root/secret/k',
    ]);
    // No root known (an HTTP server without roots): a relative path stays relative.
    expect(resolvePathArgument('./a//b/', { roots: [], home: null })).toEqual(['a/b']);
  });

  it('takes the roots from the config, else the arguments naming folders, else the working folder', () => {
    const allowed = path.join(temp, 'allowed');
    const other = path.join(temp, 'other');
    fs.mkdirSync(allowed);
    fs.mkdirSync(other);
    const script = path.join(temp, 'server.js');
    fs.writeFileSync(script, '');
    expect(serverPathsOf(stdio([script, allowed, '-y', `--also=${other}`, 'no-such-folder'])).roots).toEqual([
      allowed,
      other,
    ]);
    expect(serverPathsOf(stdio([script, 'allowed'], { cwd: temp })).roots).toEqual([allowed]);
    expect(serverPathsOf(stdio([script]), '/work').roots).toEqual(['/work']);
    expect(serverPathsOf(stdio([script, allowed], { roots: ['/data'] })).roots).toEqual(['/data']);
    expect(serverPathsOf(stdio([], { env: { HOME: '/home/x' } })).home).toBe('/home/x');
    const http: McpServerConfig = {
      name: 'web',
      transport: 'http',
      url: 'http://127.0.0.1/mcp',
      headers: {},
      timeoutMs: 1000,
      retries: 1,
      trustAnnotations: false,
      roots: null,
      tools: {},
    };
    expect(serverPathsOf(http)).toEqual({ roots: [], home: null });
  });
});

describe('rules on an upstream tool with several paths', () => {
  const subject = createUpstreamPathSubject({ paths: { roots: ['/root'], home: null }, schema: () => undefined });
  const tool = defineTool({
    name: 'fs__read_multiple_files',
    description: 'x',
    sideEffect: 'read',
    inputSchema: jsonSchemaInput({ type: 'object' }),
    permissionSubject: subject,
    execute: () => null,
  });
  const lookup = (name: string) => (name === tool.name ? tool : undefined);
  const set = (lists: Partial<Record<'allow' | 'ask' | 'deny', string[]>>) =>
    compileRuleSet(
      (['allow', 'ask', 'deny'] as const).flatMap((list) =>
        (lists[list] ?? []).map((rule): RuleInput => ({ list, rule, session: null })),
      ),
      {},
      lookup,
    );
  const decide = (rules: ReturnType<typeof set>, input: object) =>
    rules.decide({ tool: tool.name, input, sideEffect: 'write', actor: 'test', sessionId: null }).policy;

  it('denies when any path matches a deny rule, relative or hidden among others', () => {
    const rules = set({ deny: ['fs__read_multiple_files(/root/secret/**)'], allow: ['fs__read_multiple_files'] });
    expect(decide(rules, { paths: ['/root/notes/a', 'secret/key'] })).toBe('deny');
    expect(decide(rules, { paths: ['notes/../secret/key'] })).toBe('deny');
    expect(decide(rules, { path: './secret//key' })).toBe('deny');
    expect(decide(rules, { source: 'notes/a', destination: 'secret/b' })).toBe('deny');
    expect(decide(rules, { paths: ['/root/notes/a', 'notes/b'] })).toBe('allow');
  });

  it('asks when any path matches an ask rule; allows by a rule only when every path is allowed', () => {
    const rules = set({
      ask: ['fs__read_multiple_files(/root/private/**)'],
      allow: ['fs__read_multiple_files(notes/**)'],
    });
    expect(decide(rules, { paths: ['notes/a', 'private/b'] })).toBe('ask');
    expect(decide(rules, { paths: ['notes/a', '/root/notes/b'] })).toBe('allow');
    // One path outside the allowed folder: the allow rule does not take the call, the default does.
    expect(
      rules.decide({
        tool: tool.name,
        input: { paths: ['notes/a', 'other/b'] },
        sideEffect: 'write',
        actor: 't',
        sessionId: null,
      }),
    ).toMatchObject({ policy: 'ask', rule: 'default for write: ask' });
    // No path at all: no rule with a specifier takes it.
    expect(decide(rules, {})).toBe('ask');
  });

  it('matches a relative glob under the root, an absolute one as is; of() is the one path, or none', () => {
    const notes = subject.compile('notes/**');
    expect(notes('/root/notes/a.md', {})).toBe(true);
    expect(notes('/root/other/a.md', {})).toBe(false);
    expect(subject.compile('/root/notes/*.md')('/root/notes/a.md', {})).toBe(true);
    expect(subject.of({ path: 'notes/a.md' })).toBe('/root/notes/a.md');
    expect(subject.of({ paths: ['a', 'b'] })).toBe('');
    expect(subject.each?.({ paths: ['a', 'b'] })).toEqual(['/root/a', '/root/b']);
    expect(() => subject.compile('  ')).toThrow(/empty/);
  });
});
