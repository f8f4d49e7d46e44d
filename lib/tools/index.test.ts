import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isProcessOutput } from '../executor/process-output';
import { validateInput } from '../executor/validate-input';
import { createBuiltinTools } from './index';
import { createTempDir, createTestContext } from './test-helpers';

let temp: Awaited<ReturnType<typeof createTempDir>>;
let tools: ReturnType<typeof createBuiltinTools>;
const byName = (name: string) => {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
};
/** As the executor calls a tool: arguments validated by the schema first. */
const call = async (name: string, args: unknown) => {
  const tool = byName(name);
  return tool.execute(tool.inputSchema.parse(args), createTestContext());
};

beforeAll(async () => {
  temp = await createTempDir();
  const workspace = path.join(await realpath(temp.dir), 'ws');
  await mkdir(workspace);
  tools = createBuiltinTools({
    workspace,
    shellAllow: ['cat', 'ls'],
    httpAllow: ['localhost:9'],
    maxFileBytes: 2048,
    maxResponseBytes: 4096,
    configFile: '/srv/app/toolscope.config.json',
  });
});

afterAll(() => temp.remove());

describe('createBuiltinTools', () => {
  it('creates the five built-ins with unique, valid names', () => {
    expect(tools.map((tool) => tool.name)).toEqual([
      'calculator',
      'read_file',
      'write_file',
      'run_shell',
      'http_request',
    ]);
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('declares each side effect', () => {
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.sideEffect]))).toEqual({
      calculator: 'none',
      read_file: 'read',
      write_file: 'write',
      run_shell: 'exec',
      http_request: 'write',
    });
  });

  it.each(['calculator', 'read_file', 'write_file', 'run_shell', 'http_request'])(
    '%s has a JSON Schema for models, every field described, and a sensible policy',
    (name) => {
      const tool = byName(name);
      expect(tool.description.length).toBeGreaterThan(80);
      for (const io of ['input', 'output'] as const) {
        const schema = z.toJSONSchema(tool.inputSchema, { io }) as {
          type: string;
          properties: Record<string, { description?: string }>;
        };
        expect(schema.type).toBe('object');
        for (const [field, property] of Object.entries(schema.properties)) {
          expect(property.description, `${name}.${field}`).toBeTruthy();
        }
      }
      expect(tool.timeoutMs).toBeGreaterThan(0);
      expect(tool.timeoutMs).toBeLessThanOrEqual(30_000);
      expect(tool.retry.maxAttempts).toBeGreaterThanOrEqual(1);
    },
  );

  it('passes the config through to each tool', async () => {
    expect(byName('run_shell').description).toContain('Allowed programs: cat, ls.');
    expect(byName('http_request').description).toContain('Allowed hosts: localhost:9;');
    expect(byName('http_request').description).toContain('4 KiB');
    expect(byName('read_file').description).toContain('2 KiB');
    await expect(call('write_file', { path: 'big.txt', content: 'x'.repeat(2049) })).rejects.toMatchObject({
      code: 'SIZE_EXCEEDED',
    });
  });

  it('refuses at the permission check, naming the config file in use', () => {
    expect(byName('run_shell').checkPermission?.({ command: ['rm', '-rf', '.'] })).toEqual({
      check: 'shell allowlist',
      message: '"rm" is not on the shell allowlist (shell.allow in /srv/app/toolscope.config.json). Allowed: cat, ls.',
      hint: expect.stringContaining('Do not retry this program'),
      details: { program: 'rm', allow: ['cat', 'ls'], configFile: '/srv/app/toolscope.config.json' },
    });
    expect(byName('run_shell').checkPermission?.({ command: ['ls', '-la'] })).toBeNull();
    const http = byName('http_request');
    expect(http.checkPermission?.({ url: 'http://example.com/x', method: 'GET' })).toMatchObject({
      check: 'http allowlist',
      message:
        'The host "example.com" is not on the HTTP allowlist (http.allow in /srv/app/toolscope.config.json). ' +
        'Allowed hosts: localhost:9.',
    });
    expect(http.checkPermission?.({ url: 'http://localhost:9/x', method: 'GET' })).toBeNull();
  });

  it('says the defaults are in use, and where a config file would go, when there is none', () => {
    const defaults = createBuiltinTools({
      workspace: '/tmp/none',
      shellAllow: ['echo'],
      httpAllow: [],
      configFile: null,
    });
    const shell = defaults.find((tool) => tool.name === 'run_shell');
    expect(shell?.checkPermission?.({ command: ['rm'] })?.message).toBe(
      '"rm" is not on the shell allowlist (shell.allow; no config file is in use, so these are the defaults — ' +
        'to change them, create toolscope.config.json in the working folder or the data folder). Allowed: echo.',
    );
    const http = defaults.find((tool) => tool.name === 'http_request');
    expect(http?.checkPermission?.({ url: 'http://127.0.0.1/', method: 'GET' })?.message).toMatch(
      /not on the HTTP allowlist \(http\.allow; no config file is in use, so these are the defaults .*\)\. Allowed hosts: none\./,
    );
  });

  it('works end to end in one workspace: write, read, list with the shell', async () => {
    expect(await call('write_file', { path: 'notes/a.txt', content: 'one\ntwo\n' })).toMatchObject({ created: true });
    expect(await call('read_file', { path: 'notes/a.txt', offset: 2 })).toMatchObject({
      content: 'two',
      totalLines: 2,
    });
    const listing = await call('run_shell', { command: ['ls'], cwd: 'notes' });
    expect(isProcessOutput(listing)).toBe(true);
    expect(listing).toMatchObject({ stdout: 'a.txt\n', exitCode: 0 });
    expect(await call('calculator', { expression: '6 * 7' })).toMatchObject({ result: 42 });
  });

  it.each([
    ['calculator', { expression: '1 + 1', extra: true }, 'extra', 'calculator takes: expression'],
    ['write_file', { path: 'a.txt', content: 'x', api_key: 'sk-1' }, 'api_key', 'write_file takes: path, content'],
  ])('%s refuses an unknown field, naming it and the fields it takes', (name, args, field, takes) => {
    const tool = byName(name);
    const result = validateInput(name, tool.inputSchema, args);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('INVALID_ARGUMENTS');
    expect(result.error.details?.issues).toEqual([
      {
        path: field,
        message: expect.stringContaining(`Unknown field "${field}"; ${takes}`),
        code: 'unrecognized_keys',
      },
    ]);
    expect(result.error.message).toContain(`${field}: Unknown field "${field}"`);
    expect(inputJsonSchemaOf(tool).additionalProperties).toBe(false);
  });
});

function inputJsonSchemaOf(tool: ReturnType<typeof createBuiltinTools>[number]): Record<string, unknown> {
  return z.toJSONSchema(tool.inputSchema, { io: 'input' }) as Record<string, unknown>;
}
