import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { createHttpApp } from '../http/app';
import { callApp } from '../http/testing/call-app';
import { createToolscope, type Toolscope } from '../server/create-toolscope';

// The sandbox as the app shows and applies it: GET /api/v1/tools, and run_shell calls through
// the whole pipeline with the config's shell settings.
let ts: Toolscope | null = null;
let dataDir = '';

afterEach(() => {
  ts?.close();
  ts = null;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function start(shell: Record<string, unknown>): Toolscope {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-sandbox-api-'));
  fs.writeFileSync(
    path.join(dataDir, 'toolscope.config.json'),
    JSON.stringify({ policies: { run_shell: 'allow' }, shell: { allow: ['echo'], ...shell } }),
  );
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir));
  return ts;
}

async function runEcho(app: Toolscope) {
  const response = await callApp(createHttpApp(app), 'POST', '/api/v1/tool-calls', {
    body: {
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'run_shell', arguments: '{"command":["echo","hi"]}' } },
      ],
    },
  });
  return (await response.json()).results[0];
}

describe('the shell sandbox in the app', () => {
  it('is listed with the tools, and run_shell runs in it, by default', async () => {
    const app = start({});
    const listing = await (await callApp(createHttpApp(app), 'GET', '/api/v1/tools')).json();
    expect(listing.sandbox).toEqual({ kind: 'bubblewrap', available: true, network: false, run_shell: 'sandboxed' });
    expect(listing.tools.map((tool: { name: string }) => tool.name)).toContain('run_shell');
    expect(await runEcho(app)).toMatchObject({ status: 'succeeded', output: 'hi\n' });
  });

  it('refuses run_shell with a structured error when the config turns the sandbox off', async () => {
    const app = start({ sandbox: 'none' });
    const listing = await (await callApp(createHttpApp(app), 'GET', '/api/v1/tools')).json();
    expect(listing.sandbox).toMatchObject({ kind: 'none', run_shell: 'refused', reason: expect.any(String) });
    const result = await runEcho(app);
    expect(result).toMatchObject({
      status: 'denied',
      error: { code: 'PERMISSION_DENIED', details: { check: 'shell sandbox', sandbox: 'none' } },
    });
    expect(result.error.hint).toMatch(/shell\.allow_unsandboxed/);
  });

  it('runs run_shell unsandboxed when the config accepts the risk, and says so', async () => {
    const app = start({ sandbox: 'none', allow_unsandboxed: true });
    const listing = await (await callApp(createHttpApp(app), 'GET', '/api/v1/tools')).json();
    expect(listing.sandbox).toMatchObject({ kind: 'none', run_shell: 'unsandboxed' });
    expect(await runEcho(app)).toMatchObject({ status: 'succeeded', output: 'hi\n' });
  });

  it('rejects a config with an unknown sandbox', () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-sandbox-api-'));
    fs.writeFileSync(path.join(dataDir, 'toolscope.config.json'), JSON.stringify({ shell: { sandbox: 'docker' } }));
    expect(() => loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir)).toThrow(/shell\.sandbox/);
  });
});
